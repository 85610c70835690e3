package claude_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The package's own tests cover Claude Code's protocol in depth, on goldens,
// recordings and the real CLI. This file checks, from outside the package,
// that New with no dialect is Claude Code's.

// fakeClaude answers initialize with one model, and each prompt with a
// Bash tool use, its result and a line of text, as Claude Code does in
// stream-JSON mode.
func fakeClaude(_ context.Context, stdin io.Reader, stdout io.Writer) error {
	out := json.NewEncoder(stdout)
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		var m struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Type {
		case "control_request":
			_ = out.Encode(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "success", "request_id": m.RequestID, "response": map[string]any{
					"commands": []any{}, "models": []any{map[string]any{"value": "default", "displayName": "Default"}}}}})
		case "user":
			for _, l := range []string{
				`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","description":"List files"}}]}}`,
				`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt"}]}}`,
				`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"One file."}]}}`,
				`{"type":"result","subtype":"success","is_error":false,"result":"One file.","usage":{"input_tokens":1,"output_tokens":1}}`,
			} {
				if _, err := io.WriteString(stdout, l+"\n"); err != nil {
					return err
				}
			}
		}
	}
	return sc.Err()
}

// recorder keeps the updates of a session.
type recorder struct {
	acp.Client
	mu      sync.Mutex
	updates []acp.SessionUpdate // guarded by mu
}

func (r *recorder) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, n.Update)
	return nil
}

func (r *recorder) Capabilities() acp.ClientCapabilities { return acp.ClientCapabilities{} }

// TestClaudeDialect: New starts Claude Code with its own stream-JSON flags,
// the session id it chose and its session-state events; it offers Claude
// Code's permission modes (not qwen's) and the models of its initialize answer; and a
// tool the dialect has no table entry for (Bash) is described as Claude
// Code's own.
func TestClaudeDialect(t *testing.T) {
	var spec proc.Spec
	a := claude.New(claude.Options{Path: "/opt/claude", ModelCache: "-", AwaitStart: true,
		NewSessionID: func() string { return "11111111-2222-4333-8444-555555555555" },
		Launch: func(_ context.Context, s proc.Spec) (proc.Process, error) {
			spec = s
			return proc.InProcess("claude", fakeClaude), nil
		}})
	t.Cleanup(func() { _ = a.Close() })
	if a.Info().Name == "" {
		t.Error("no agent name")
	}
	c := &recorder{}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/work"}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	for _, want := range []string{"--input-format", "--include-partial-messages", "--permission-prompt-tool",
		"--session-id=11111111-2222-4333-8444-555555555555"} {
		if !slices.Contains(spec.Args, want) {
			t.Errorf("args %q lack %q", spec.Args, want)
		}
	}
	if spec.Path != "/opt/claude" || !slices.Contains(spec.Env, "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1") {
		t.Errorf("started %s with env %q", spec.Path, spec.Env)
	}
	st := s.State()
	var modes []string
	if st.Modes != nil {
		for _, m := range st.Modes.AvailableModes {
			modes = append(modes, string(m.ID))
		}
	}
	for _, want := range []string{"default", "acceptEdits", "plan", "dontAsk"} {
		if !slices.Contains(modes, want) || st.Modes.CurrentModeID != "default" {
			t.Errorf("modes %q lack Claude Code's %q, or default is not current", modes, want)
		}
	}
	if o := modelOption(st); o == nil || !strings.Contains(dumpJSON(o), `"Default"`) {
		t.Errorf("config options %s: want a model option with the one of the initialize answer", dumpJSON(st.ConfigOptions))
	}

	stop, err := s.Prompt(t.Context(), acp.PromptRequest{Prompt: []acp.ContentBlock{acp.TextBlock("what is here?")}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("turn: %v, %v", stop, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var call *acp.ToolCall
	var text strings.Builder
	for _, u := range c.updates {
		if u.ToolCall != nil {
			call = u.ToolCall
		}
		if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
			text.WriteString(m.Content.Text.Text)
		}
	}
	if call == nil || call.Kind != acp.ToolKindExecute || call.Title != "ls" {
		t.Errorf("Bash tool call %+v: want kind execute titled by its command", call)
	}
	if text.String() != "One file." {
		t.Errorf("text %q", text.String())
	}
}

// modelOption is the session's model selector, or nil.
func modelOption(st acp.SessionState) *acp.SessionConfigOption {
	for i, o := range st.ConfigOptions {
		if o.ID == "model" {
			return &st.ConfigOptions[i]
		}
	}
	return nil
}

func dumpJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
