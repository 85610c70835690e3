package native_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestForkPassesThrough: an agent's session/fork capability reaches the
// editor as the agent wrote it, and session/fork reaches the agent with
// the editor's params unchanged (the agent echoes what it got in its
// answer's _meta, which comes back unchanged too). The fork is a session
// of its own agent process: it has the history so far, the original does
// not get the fork's turns nor the fork the original's, and session/list
// shows both. A fork of an unknown session is the agent's -32002; one
// while the session's turn runs is the bridge's -32600. All of it holds
// through `auto` too, where the fork is a new session with an id of the
// agent's, not the one it was forked from.
func TestForkPassesThrough(t *testing.T) {
	t.Parallel()
	aloneAndAuto(t, testFork)
}

func testFork(t *testing.T, auto bool) {
	e := start(t, options{auto: auto, env: []string{"ACPAGENT_FORK=1", "ACPAGENT_RESUME=1"}})
	f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var init struct {
		AgentCapabilities struct {
			SessionCapabilities map[string]any `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	json.Unmarshal(f.Result, &init)
	if got, want := init.AgentCapabilities.SessionCapabilities["fork"], any(map[string]any{"_meta": map[string]any{"acpagent": "fork"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("sessionCapabilities.fork = %v, want the agent's %v", got, want)
	}
	dir := t.TempDir()
	f = e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	var opened struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(f.Result, &opened)
	sid := opened.SessionID
	stopReason(t, e.call("session/prompt", prompt(sid, "first turn")))

	params := map[string]any{"sessionId": sid, "cwd": dir, "mcpServers": []any{}, "_meta": map[string]any{"editor": map[string]any{"why": "try another way"}}}
	f = e.call("session/fork", params)
	if f.Error != nil {
		t.Fatalf("session/fork: %+v", f.Error)
	}
	var forked struct {
		SessionID string         `json:"sessionId"`
		Modes     map[string]any `json:"modes"`
		Meta      struct {
			Acpagent struct {
				ForkedFrom string         `json:"forkedFrom"`
				Params     map[string]any `json:"params"`
			} `json:"acpagent"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(f.Result, &forked); err != nil {
		t.Fatal(err)
	}
	fork := forked.SessionID
	if fork == "" || fork == sid || forked.Modes == nil {
		t.Fatalf("session/fork answered %s, want a new session with the agent's modes", f.Result)
	}
	sent, _ := json.Marshal(params)
	var want map[string]any
	json.Unmarshal(sent, &want)
	if got := forked.Meta.Acpagent.Params; !reflect.DeepEqual(got, want) || forked.Meta.Acpagent.ForkedFrom != sid {
		t.Errorf("the agent got %v (forking %q), want the editor's params %v unchanged", got, forked.Meta.Acpagent.ForkedFrom, want)
	}
	if m := drain(e.toAgent); !contains(m, "session/fork") {
		t.Errorf("bridge sent %v to the agents, want session/fork among them", m)
	}

	history := func(id string) string {
		t.Helper()
		before := e.noteCount()
		stopReason(t, e.call("session/prompt", prompt(id, "history")))
		return last(chunks(e.notesSince(before)))
	}
	if got := history(fork); got != "history: first turn" {
		t.Errorf("the fork's history = %q, want the original's turn", got)
	}
	stopReason(t, e.call("session/prompt", prompt(sid, "second turn")))
	if got := history(sid); got != "history: first turn | second turn" {
		t.Errorf("the original's history = %q, want its own turns only", got)
	}
	if got := history(fork); got != "history: first turn | history" {
		t.Errorf("the fork's history = %q, want its own turns only", got)
	}

	f = e.call("session/list", map[string]any{})
	if !strings.Contains(string(f.Result), `"`+sid+`"`) || !strings.Contains(string(f.Result), `"`+fork+`"`) {
		t.Errorf("session/list = %s %+v, want both %s and %s", f.Result, f.Error, sid, fork)
	}

	f = e.call("session/fork", map[string]any{"sessionId": "nope", "cwd": dir, "mcpServers": []any{}})
	if f.Error == nil || f.Error.Code != -32002 {
		t.Errorf("fork of an unknown session: %s %+v, want -32002", f.Result, f.Error)
	}

	running := e.request("session/prompt", prompt(sid, "slow"))
	e.waitNote(0, func(f frame) bool { return strings.Contains(string(f.Params), `"working"`) })
	f = e.call("session/fork", map[string]any{"sessionId": sid, "cwd": dir, "mcpServers": []any{}})
	if f.Error == nil || f.Error.Code != -32600 {
		t.Errorf("fork during a turn: %s %+v, want -32600", f.Result, f.Error)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	if r := stopReason(t, e.await(running, "the cancelled turn")); r != "cancelled" {
		t.Errorf("the turn ended %q, want cancelled", r)
	}

	// Closing the fork stops its agent and leaves the original's.
	if f = e.call("session/close", map[string]any{"sessionId": fork}); f.Error != nil {
		t.Fatalf("session/close: %+v", f.Error)
	}
	stopReason(t, e.call("session/prompt", prompt(sid, "still here")))
}
