package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// stubMsg is one message the adapter wrote to a stand-in app-server.
type stubMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	line   string
}

// answer reports whether m is the adapter's answer to a request of the
// stand-in's own.
func (m stubMsg) answer() bool { return m.Method == "" }

// errStubDone ends a stand-in app-server without an error.
var errStubDone = errors.New("stand-in app-server done")

// stubAppServer is a stand-in app-server for in-process tests. It answers
// each request of the adapter with a default result (thread-1 for
// thread/start, a running turn-1 for turn/start, {} otherwise), then hands
// the message to after, which writes what the test's script sends next;
// the adapter's answers to the stand-in's own requests are handed to after
// unanswered. An error from after ends the server (errStubDone: with none).
func stubAppServer(after func(ctx context.Context, m stubMsg, stdout io.Writer) error) func(context.Context, io.Reader, io.Writer) error {
	return func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			var m stubMsg
			if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
				continue
			}
			m.line = sc.Text()
			if !m.answer() {
				result := `{}`
				switch m.Method {
				case mThreadStart:
					result = `{"thread":{"id":"thread-1"}}`
				case mTurnStart:
					result = `{"turn":{"id":"turn-1","status":"inProgress"}}`
				}
				fmt.Fprintf(stdout, "{\"id\":%s,\"result\":%s}\n", m.ID, result)
			}
			if err := after(ctx, m, stdout); err != nil {
				if errors.Is(err, errStubDone) {
					return nil
				}
				return err
			}
		}
		return nil
	}
}

// turnCompleted is Codex's turn/completed for the stand-in's turn.
const turnCompleted = `{"method":"turn/completed","params":{"threadId":"thread-1","turn":{"id":"turn-1","status":"completed"}}}`
