package codex

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestBatchGathersDeltas: the text deltas of one batch reach the editor as
// one chunk per run of text (or of reasoning), in order with everything
// else: a tool call, a notice, a question each come after the text before
// them.
func TestBatchGathersDeltas(t *testing.T) {
	var got []string
	cl := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		u := n.Update
		switch {
		case u.AgentMessageChunk != nil:
			got = append(got, "text:"+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			got = append(got, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "tool:"+string(u.ToolCall.ToolCallID))
		default:
			b, _ := json.Marshal(u)
			got = append(got, string(b))
		}
		return nil
	}}
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t))})
	s := newSession(a, cl, "/project", ModeAuto)
	s.thread = "thread-1"
	tr := &turn{s: s, id: "turn-1", tr: newTranslator()}
	delta := func(method, d string) string {
		return `{"method":"` + method + `","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"i","delta":` + quote(d) + `}}`
	}
	for _, line := range []string{
		delta(nReasoningDelta, "Think"), delta(nSummaryDelta, "ing."),
		delta(nAgentDelta, "Hello"), delta(nAgentDelta, ", "), delta(nAgentDelta, "world."),
		`{"method":"item/started","params":{"threadId":"thread-1","turnId":"turn-1","item":{"type":"commandExecution","id":"c1","command":"ls","cwd":"/project","status":"inProgress"}}}`,
		delta(nAgentDelta, "Ran "), delta(nAgentDelta, "it."),
		// An earlier turn's straggler is not this turn's text.
		`{"method":"item/agentMessage/delta","params":{"threadId":"thread-1","turnId":"turn-0","itemId":"i","delta":"late"}}`,
		delta(nAgentDelta, " Done."),
	} {
		var m message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		s.q.push(&m)
	}
	if _, end, err := tr.batch(t.Context()); end || err != nil {
		t.Fatalf("batch ended the turn: %v", err)
	}
	want := []string{"thought:Thinking.", "text:Hello, world.", "tool:c1", "text:Ran it. Done."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// scriptedReader returns its reads in order, each after its pause (on the
// bubble's clock), and records when each read was asked for.
type scriptedReader struct {
	reads []scriptedRead
	asked []time.Time
}

type scriptedRead struct {
	pause time.Duration
	data  string
}

func (r *scriptedReader) Read(b []byte) (int, error) {
	r.asked = append(r.asked, time.Now())
	if len(r.reads) == 0 {
		return 0, io.EOF
	}
	next := r.reads[0]
	r.reads = r.reads[1:]
	time.Sleep(next.pause)
	return copy(b, next.data), nil
}

// TestReadWindow: lines that come apart are read as they come; a dense
// stream (reads less than window/8 apart, each with lines) is read once a
// window, and reading goes back to as-they-come once a read brings fewer
// than two lines.
func TestReadWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = time.Millisecond
		r := &scriptedReader{reads: []scriptedRead{
			{time.Second, "a\n"}, {time.Second, "b\n"}, // sparse
			{time.Microsecond, "c\nd\n"}, // dense: batching from here
			{0, "e\nf\n"}, {0, "g\nh\n"},
			{0, "i\n"}, // one line: batching ends
			{0, "j\n"},
		}}
		w := windowed(r, window)
		buf := make([]byte, 64)
		var text strings.Builder
		for {
			n, err := w.Read(buf)
			text.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if text.String() != "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n" {
			t.Fatalf("read %q", text.String())
		}
		var gaps []time.Duration
		for i := 1; i < len(r.asked); i++ {
			gaps = append(gaps, r.asked[i].Sub(r.asked[i-1]))
		}
		// Between two reads: the first one's pause, then any wait of the
		// window before the second. After "i", reading as it comes, "j"
		// comes at once, so batching starts again for the read that
		// meets the end.
		want := []time.Duration{time.Second, time.Second, window + time.Microsecond, window, window, 0, window}
		if len(gaps) != len(want) {
			t.Fatalf("gaps %v, want %v", gaps, want)
		}
		for i := range want {
			if gaps[i] != want[i] {
				t.Errorf("gaps %v, want %v", gaps, want)
				break
			}
		}
	})
}
