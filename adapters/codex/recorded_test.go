package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// entry is one line of a recorded app-server session: a message the client
// sent ("out") or the app-server sent ("in").
type entry struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

func loadRecording(t *testing.T, name string) []entry {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var es []entry
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		es = append(es, e)
	}
	return es
}

// replayer plays the app-server side of a recording: it writes the "in"
// messages in order and, at each "out" message, reads what the adapter
// sent and notes where it differs in method or approval decision.
type replayer struct {
	es []entry

	mu         sync.Mutex
	mismatches []string // guarded by mu
}

func (r *replayer) run(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	br := bufio.NewReader(stdin)
	for _, e := range r.es {
		if e.Dir == "in" {
			if _, err := stdout.Write(append(append([]byte{}, e.Msg...), '\n')); err != nil {
				return err
			}
			continue
		}
		line, err := br.ReadBytes('\n')
		if err != nil {
			r.note("stdin ended before %s", e.Msg)
			return nil
		}
		var want, got struct {
			Method string `json:"method"`
			Result *struct {
				Decision any `json:"decision"`
			} `json:"result"`
		}
		_ = json.Unmarshal(e.Msg, &want)
		_ = json.Unmarshal(line, &got)
		if want.Method != got.Method || fmt.Sprint(want.Result) != fmt.Sprint(got.Result) {
			r.note("sent %s, recorded %s", line, e.Msg)
		}
	}
	// Past the recording: answer requests (thread/unsubscribe) until EOF.
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return nil
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 {
			fmt.Fprintf(stdout, "{\"id\":%s,\"result\":{}}\n", m.ID)
		}
	}
}

func (r *replayer) note(format string, args ...any) {
	r.mu.Lock()
	r.mismatches = append(r.mismatches, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// TestRecordedCommandAndPatch plays a recorded Codex 0.169 session (an
// escalated command allowed, then a patch to the file it made, allowed)
// into the adapter in-process, and checks the ACP side and the decisions
// the adapter sent back. The recording was made with a small client
// driving the real app-server against the scripted Responses API; the
// account/read and model/list exchanges the adapter makes at start come
// from separate runs of the same binary and were spliced in (request ids
// renumbered), and machine paths were replaced by /project and /root.
func TestRecordedCommandAndPatch(t *testing.T) {
	r := &replayer{es: loadRecording(t, "command_patch.jsonl")}
	// NoSpare: the recording has one thread/start, the session's own.
	a := New(Options{Mode: ModeReadOnly, NoSpare: true, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", r.run), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rec := newRecorder()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, rec.client(optAccept))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"run it", "patch it"} {
		stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v; want end_turn", text, stop, err)
		}
	}
	s.Close()
	if len(r.mismatches) > 0 {
		t.Errorf("the adapter's messages differ from the recording:\n%s", strings.Join(r.mismatches, "\n"))
	}
	var got []string
	rec.mu.Lock()
	for _, u := range rec.updates {
		got = append(got, summary(u))
	}
	asked := len(rec.asked)
	rec.mu.Unlock()
	want := []string{
		"message: Running it.",
		"tool_call execute pending->in_progress: touch f && echo hi-from-tool",
		"update completed: ```\nhi-from-tool\n```\n\nExit code 0",
		"usage 36/258400",
		"message: The command ran.",
		"usage 28/258400",
		"tool_call edit pending: Edit f diff /project/f \"\" -> \"added line\\n\"",
		"update completed",
		"usage 28/258400",
		"message: Patched.",
		"usage 28/258400",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates (-want +got):\n-%s\n+%s", strings.Join(want, "\n-"), strings.Join(got, "\n+"))
	}
	if asked != 2 {
		t.Errorf("asked %d permissions, want 2", asked)
	}
}

// summary is one line per update, for comparing a turn's shape.
func summary(u acp.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil:
		return "message: " + u.AgentMessageChunk.Content.Text.Text
	case u.AgentThoughtChunk != nil:
		return "thought: " + u.AgentThoughtChunk.Content.Text.Text
	case u.ToolCall != nil:
		tc := u.ToolCall
		s := fmt.Sprintf("tool_call %s %s", tc.Kind, tc.Status)
		if tc.Kind == acp.ToolKindExecute {
			s = fmt.Sprintf("tool_call %s pending->%s", tc.Kind, tc.Status)
		}
		s += ": " + tc.Title
		for _, c := range tc.Content {
			if d := c.Diff; d != nil {
				old := ""
				if d.OldText != nil {
					old = *d.OldText
				}
				s += fmt.Sprintf(" diff %s %q -> %q", d.Path, old, d.NewText)
			}
		}
		return s
	case u.ToolCallUpdate != nil:
		s := "update " + string(*u.ToolCallUpdate.Status)
		for _, c := range u.ToolCallUpdate.Content {
			if c.Content != nil && c.Content.Text != nil {
				s += ": " + c.Content.Text.Text
			}
		}
		return s
	case u.UsageUpdate != nil:
		return fmt.Sprintf("usage %d/%d", u.UsageUpdate.Used, u.UsageUpdate.Size)
	case u.Plan != nil:
		return fmt.Sprintf("plan %d entries", len(u.Plan.Entries))
	}
	return "other"
}
