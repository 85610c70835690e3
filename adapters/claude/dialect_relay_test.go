package claude_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/dialectagent"
)

// client is an editor that records updates and answers permission
// questions with the option of a given kind.
type client struct {
	acp.Client
	answer acp.PermissionOptionKind

	mu      sync.Mutex
	updates []acp.SessionUpdate            // guarded by mu
	asked   []acp.RequestPermissionRequest // guarded by mu
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *client) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	c.mu.Unlock()
	for _, o := range req.Options {
		if o.Kind == c.answer {
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(o.OptionID)}, nil
		}
	}
	return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
}

func (c *client) Capabilities() acp.ClientCapabilities { return acp.ClientCapabilities{} }

// take returns the updates so far and forgets them.
func (c *client) take() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

func text(us []acp.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// toolCall is the first tool_call of us and the last update of its status
// and content.
func toolCall(t *testing.T, us []acp.SessionUpdate) (*acp.ToolCall, *acp.ToolCallUpdate) {
	t.Helper()
	var call *acp.ToolCall
	var last *acp.ToolCallUpdate
	for _, u := range us {
		if u.ToolCall != nil && call == nil {
			call = u.ToolCall
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil {
			last = u.ToolCallUpdate
		}
	}
	if call == nil || last == nil {
		t.Fatalf("no tool call with a final status in %s", dump(us))
	}
	return call, last
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// relay reads the relay dialect file of the scripted agent.
func relay(t *testing.T) *claude.Dialect {
	t.Helper()
	d, err := claude.LoadDialect("../../fixtures/testsupport/dialectagent/relay.toml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// logBuffer collects the adapter's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// relaySession opens a session of the relay agent, in-process.
func relaySession(t *testing.T, c *client, agent dialectagent.Options, o claude.Options, logs io.Writer) (acp.Adapter, acp.Session) {
	t.Helper()
	o.Dialect = relay(t)
	o.Launch = func(_ context.Context, spec proc.Spec) (proc.Process, error) {
		if spec.Args[0] != "--stream" {
			t.Errorf("args %q: want the dialect's first", spec.Args)
		}
		return proc.InProcess("relay", func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
			return dialectagent.Run(ctx, stdin, stdout, agent)
		}), nil
	}
	o.ModelCache = "-"
	if logs == nil {
		logs = zerolog.NewTestWriter(t)
	}
	o.Logger = zerolog.New(logs).Level(zerolog.DebugLevel)
	a := claude.New(o).Contract()
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/work"}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		_ = a.Close()
	})
	return a, s
}

func prompt(t *testing.T, s acp.Session, _ acp.Client, what string) (acp.StopReason, error) {
	t.Helper()
	return s.Prompt(t.Context(), acp.PromptRequest{Prompt: []acp.ContentBlock{acp.TextBlock(what)}})
}

// TestRelayDialect: a CLI whose every discriminator and tool is renamed is
// served through its dialect file alone: text, a tool allowed and one
// refused, an edit with its diff, a tool the dialect does not name (kind
// other, raw input), and messages of an unknown type, logged once.
func TestRelayDialect(t *testing.T) {
	var logs logBuffer
	c := &client{answer: acp.PermissionOptionKindAllowOnce}
	a, s := relaySession(t, c, dialectagent.Options{}, claude.Options{}, &logs)
	if _, ok := a.(acp.Loader); ok {
		t.Error("a dialect without transcripts offers session/load")
	}
	if st := s.State(); st.Modes == nil || len(st.Modes.AvailableModes) != 2 || st.Modes.CurrentModeID != "ask" {
		t.Errorf("modes %s: want the dialect's ask and trust, ask current", dump(st.Modes))
	}

	stop, err := prompt(t, s, c, "say hello")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("text turn: %v, %v", stop, err)
	}
	us := c.take()
	chunks := 0
	for _, u := range us {
		if u.AgentMessageChunk != nil {
			chunks++
		}
	}
	// Two chunks: the renamed stream events were streamed, and the whole
	// reply that follows them not repeated.
	if got := text(us); got != "Hello from relay." || chunks != 2 {
		t.Errorf("text %q in %d chunks, want 2", got, chunks)
	}

	if _, err := prompt(t, s, c, "run it"); err != nil {
		t.Fatal(err)
	}
	us = c.take()
	call, last := toolCall(t, us)
	if call.Kind != acp.ToolKindExecute || call.Title != "Run echo hi" {
		t.Errorf("sh tool call: kind %q title %q", call.Kind, call.Title)
	}
	if *last.Status != acp.ToolCallStatusCompleted || !strings.Contains(dump(last.Content), "```console\\nhi") {
		t.Errorf("sh result: %s", dump(last))
	}
	if !strings.Contains(text(us), "Done: sh") {
		t.Errorf("text after the allowed tool: %q", text(us))
	}

	c.answer = acp.PermissionOptionKindRejectOnce
	if _, err := prompt(t, s, c, "patch it"); err != nil {
		t.Fatal(err)
	}
	us = c.take()
	call, last = toolCall(t, us)
	diff := call.Content
	if call.Kind != acp.ToolKindEdit || call.Title != "Patch /work/notes.txt" && call.Title != "Patch notes.txt" ||
		len(diff) != 1 || diff[0].Diff == nil || diff[0].Diff.NewText != "b" || diff[0].Diff.OldText == nil || *diff[0].Diff.OldText != "a" {
		t.Errorf("patch tool call: %s", dump(call))
	}
	if *last.Status != acp.ToolCallStatusFailed || !strings.Contains(text(us), "Not run: patch") {
		t.Errorf("refused patch: %s, text %q", dump(last), text(us))
	}

	if _, err := prompt(t, s, c, "gizmo"); err != nil {
		t.Fatal(err)
	}
	call, _ = toolCall(t, c.take())
	if call.Kind != acp.ToolKindOther || call.Title != "gizmo" || string(mustJSON(t, call.RawInput)) != `{"x":1}` {
		t.Errorf("unnamed tool: %s", dump(call))
	}
	c.mu.Lock()
	asked := len(c.asked)
	c.mu.Unlock()
	if asked != 2 {
		t.Errorf("%d permission questions, want 2 (sh and patch)", asked)
	}
	_ = s.Close()
	if n := strings.Count(logs.String(), `"type":"tick"`); n != 1 {
		t.Errorf("the unknown type was logged %d times, want once:\n%s", n, logs.String())
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRelayCancel: a cancelled turn sends the dialect's interrupt and ends
// cancelled.
func TestRelayCancel(t *testing.T) {
	c := &client{answer: acp.PermissionOptionKindAllowOnce}
	_, s := relaySession(t, c, dialectagent.Options{}, claude.Options{}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := s.Prompt(ctx, acp.PromptRequest{Prompt: []acp.ContentBlock{acp.TextBlock("hang")}})
		done <- stop
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(text(c.snapshot()), "Working") {
		if time.Now().After(deadline) {
			t.Fatal("no chunk before the cancel")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case stop := <-done:
		if stop != acp.StopReasonCancelled {
			t.Errorf("stop reason %q, want cancelled", stop)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled turn did not end")
	}
}

func (c *client) snapshot() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionUpdate(nil), c.updates...)
}

// TestRelayStartTimeout: a CLI that never answers initialize fails the
// prompt within the start timeout, with an error naming the dialect and
// the command.
func TestRelayStartTimeout(t *testing.T) {
	c := &client{}
	_, s := relaySession(t, c, dialectagent.Options{Silent: true}, claude.Options{Path: "/opt/relay/bin/relay",
		StartTimeout: 200 * time.Millisecond, ModelWait: -1}, nil)
	_, err := prompt(t, s, c, "hello")
	if err == nil || !strings.Contains(err.Error(), "relay dialect") || !strings.Contains(err.Error(), "/opt/relay/bin/relay") {
		t.Fatalf("error %v: want one naming the dialect and the command", err)
	}
}
