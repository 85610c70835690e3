package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/replay/streamplayer"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// testSessionID is the id the tests give new sessions.
const testSessionID = "11111111-1111-4111-8111-111111111111"

// transcript records what an adapter did, in order, as JSON values.
type transcript struct {
	mu    sync.Mutex
	items []map[string]any
}

func (r *transcript) add(key string, v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, map[string]any{key: v})
}

// addResult records how a call ended.
func (r *transcript) addResult(stop acp.StopReason, err error) {
	if err != nil {
		r.addError(err)
		return
	}
	r.add("stopReason", stop)
}

func (r *transcript) addError(err error) {
	var e *acp.Error
	if errors.As(err, &e) {
		r.add("error", map[string]any{"code": e.Code, "message": err.Error(), "data": e.Data})
		return
	}
	r.add("error", map[string]any{"message": err.Error()})
}

// format renders the transcript as indented JSON objects separated by
// blank lines (the fixtures' want format).
func (r *transcript) format(t *testing.T) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for i, it := range r.items {
		if i > 0 {
			b.WriteByte('\n')
		}
		out, err := json.MarshalIndent(it, "", "  ")
		if err != nil {
			t.Fatalf("encoding transcript item %d: %v", i, err)
		}
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// fakeLaunch runs the fake agent in-process on a script, mapping the
// recorded session id to the live one.
func fakeLaunch(script []recording.Step, recorded, live string) func(context.Context, proc.Spec) (proc.Process, error) {
	return func(context.Context, proc.Spec) (proc.Process, error) {
		return proc.InProcess("claude", func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
			return streamplayer.Run(ctx, script, stdin, stdout, streamplayer.Options{SessionID: live, RecordedSessionID: recorded})
		}), nil
	}
}

func testLogger(t *testing.T) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)
}
