package native_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/native"
)

// counted serves the scripted agent and counts its starts.
func counted(t *testing.T, env ...string) (*editor, *atomic.Int32) {
	t.Helper()
	var starts atomic.Int32
	e := start(t, options{env: env, adapt: func(o native.Options) native.Options {
		o.Launch = func(ctx context.Context, spec proc.Spec) (proc.Process, error) {
			starts.Add(1)
			return proc.Start(ctx, spec)
		}
		return o
	}})
	return e, &starts
}

// here is the test's working directory: the bridge's, where the agent
// asked at initialize runs, so a session opened there may take it over.
func here(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func (e *editor) newSessionIn(dir string) (string, frame) {
	e.t.Helper()
	f := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(f.Result, &r)
	return r.SessionID, f
}

func wantStarts(t *testing.T, starts *atomic.Int32, want int32, after string) {
	t.Helper()
	if got := starts.Load(); got != want {
		t.Errorf("%d agent starts after %s, want %d", got, after, want)
	}
}

// TestFirstSessionTakesOverInitializeAgent: the agent started at
// initialize serves the first session, so session/new waits for no second
// start; later sessions and session-less requests get processes of their
// own, and closing the first session breaks neither.
func TestFirstSessionTakesOverInitializeAgent(t *testing.T) {
	t.Parallel()
	e, starts := counted(t)
	if f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); f.Error != nil {
		t.Fatalf("initialize: %+v", f.Error)
	}
	first, f := e.newSessionIn(here(t))
	if f.Error != nil || first == "" {
		t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	wantStarts(t, starts, 1, "initialize and session/new")
	if r := stopReason(t, e.call("session/prompt", prompt(first, "hello"))); r != "end_turn" {
		t.Fatalf("first session's turn ended %q", r)
	}

	second, f := e.newSessionIn(here(t))
	if f.Error != nil || second == "" {
		t.Fatalf("second session/new: %s %+v", f.Result, f.Error)
	}
	wantStarts(t, starts, 2, "a second session/new")
	if pid := func(s string) string { return strings.SplitN(s, "-", 2)[0] }; pid(first) == pid(second) {
		t.Errorf("sessions %s and %s share an agent process", first, second)
	}

	list := func(when string) {
		t.Helper()
		if f := e.call("session/list", map[string]any{}); f.Error != nil {
			t.Fatalf("session/list %s: %+v", when, f.Error)
		}
	}
	list("after the first session took the agent over")
	wantStarts(t, starts, 3, "session/list (its own control agent)")
	if f := e.call("session/close", map[string]any{"sessionId": first}); f.Error != nil {
		t.Fatalf("session/close: %+v", f.Error)
	}
	list("after the first session closed")
	if f := e.call("_acpagent/echo", map[string]any{"x": 1}); f.Error != nil || string(f.Result) != `{"x":1}` {
		t.Errorf("extension method after close: %s %+v", f.Result, f.Error)
	}
	wantStarts(t, starts, 3, "more session-less requests")
	if r := stopReason(t, e.call("session/prompt", prompt(second, "still here"))); r != "end_turn" {
		t.Errorf("second session's turn after the first closed ended %q", r)
	}
}

// TestSessionElsewhereStartsItsOwn: the agent started at initialize runs
// in the bridge's directory; a session in another directory gets an agent
// started there (an agent reads its project's settings where it starts),
// and the first one goes on answering session-less requests.
func TestSessionElsewhereStartsItsOwn(t *testing.T) {
	t.Parallel()
	e, starts := counted(t)
	e.call("initialize", map[string]any{"protocolVersion": 1})
	if sid, f := e.newSessionIn(t.TempDir()); f.Error != nil || sid == "" {
		t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	wantStarts(t, starts, 2, "session/new in another directory")
	if f := e.call("session/list", map[string]any{}); f.Error != nil {
		t.Fatalf("session/list: %+v", f.Error)
	}
	wantStarts(t, starts, 2, "session/list")
}

// TestSpareKeptWhenRefused: a session/new the agent refuses (not logged
// in) leaves the agent asked at initialize free; authenticate logs it in
// and the next session/new takes it over: one start in all.
func TestSpareKeptWhenRefused(t *testing.T) {
	t.Parallel()
	e, starts := counted(t, "ACPAGENT_AUTH=1")
	e.call("initialize", map[string]any{"protocolVersion": 1})
	if _, f := e.newSessionIn(here(t)); f.Error == nil || f.Error.Code != -32000 {
		t.Fatalf("session/new before authenticate: %s %+v, want the agent's -32000", f.Result, f.Error)
	}
	if f := e.call("authenticate", map[string]any{"methodId": "key"}); f.Error != nil {
		t.Fatalf("authenticate: %+v", f.Error)
	}
	sid, f := e.newSessionIn(here(t))
	if f.Error != nil {
		t.Fatalf("session/new after authenticate: %+v", f.Error)
	}
	wantStarts(t, starts, 1, "initialize, a refused session/new, authenticate and session/new")
	if r := stopReason(t, e.call("session/prompt", prompt(sid, "hi"))); r != "end_turn" {
		t.Fatalf("turn ended %q", r)
	}
	// The session-less requests now run logged in too, in an agent of
	// their own.
	if f := e.call("session/list", map[string]any{}); f.Error != nil {
		t.Errorf("session/list after authenticate: %+v", f.Error)
	}
	wantStarts(t, starts, 2, "session/list")
}

// TestTakenOverAgentDies: the session that took over the initialize-time
// agent is re-attached in a new one when it dies, as any session is.
func TestTakenOverAgentDies(t *testing.T) {
	t.Parallel()
	e, starts := counted(t)
	e.call("initialize", map[string]any{"protocolVersion": 1})
	sid, f := e.newSessionIn(here(t))
	if f.Error != nil {
		t.Fatalf("session/new: %+v", f.Error)
	}
	wantStarts(t, starts, 1, "initialize and session/new")
	if f := e.call("session/prompt", prompt(sid, "die")); f.Error == nil {
		t.Fatalf("prompt answered %s after the agent died, want an error", f.Result)
	}
	if r := stopReason(t, e.call("session/prompt", prompt(sid, "again"))); r != "end_turn" {
		t.Fatalf("turn after the restart ended %q", r)
	}
	wantStarts(t, starts, 2, "the restart")
	if f := e.call("session/list", map[string]any{}); f.Error != nil {
		t.Errorf("session/list: %+v", f.Error)
	}
}
