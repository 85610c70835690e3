package native_test

import (
	"encoding/json"
	"testing"
)

func steering(sid, text string, meta map[string]any) map[string]any {
	p := prompt(sid, text)
	if meta != nil {
		p["_meta"] = meta
	}
	return p
}

// TestSteeringPassesThrough: an agent's steering (_session/steering and
// its _meta.steering capability) reaches the editor unchanged, and the
// editor's steering messages reach the agent unchanged, _meta included:
// one joins the running turn, whose answer comes after the agent's reply
// to it; with no turn running the agent decides (it starts one, or hands
// the message back).
func TestSteeringPassesThrough(t *testing.T) {
	t.Parallel()
	e := start(t, options{env: []string{"ACPAGENT_STEERING=1"}})
	f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if !jsonEqual(fieldOf(t, f.Result, "_meta"), []byte(`{"steering":{"supported":true}}`)) {
		t.Errorf("initialize _meta = %s, want the agent's steering capability", fieldOf(t, f.Result, "_meta"))
	}
	f = e.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	var opened struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(f.Result, &opened)
	sid := opened.SessionID

	before := e.noteCount()
	turn := e.request("session/prompt", prompt(sid, "steerable"))
	e.waitNote(before, func(f frame) bool { return last(chunks([]frame{f})) == "waiting for steering" })
	if f := e.call("_session/steering", steering(sid, "go left", nil)); !jsonEqual(f.Result, []byte(`{"outcome":"injected"}`)) {
		t.Fatalf("steering during the turn answered %s %+v", f.Result, f.Error)
	}
	f = e.await(turn, "prompt")
	if stopReason(t, f) != "end_turn" || last(chunks(e.notesSince(before)[:f.notesBefore-before])) != "steered: go left" {
		t.Errorf("the turn's reply to the steering message did not come before its answer: %v", chunks(e.notesSince(before)))
	}

	f = e.call("_session/steering", steering(sid, "later", map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}))
	if !jsonEqual(f.Result, []byte(`{"outcome":"promptRequired","reason":"noRunningTurn"}`)) {
		t.Errorf("idle steering with promptRequired answered %s %+v", f.Result, f.Error)
	}
	before = e.noteCount()
	if f := e.call("_session/steering", steering(sid, "start", nil)); !jsonEqual(f.Result, []byte(`{"outcome":"startedNewTurn"}`)) {
		t.Errorf("idle steering answered %s %+v", f.Result, f.Error)
	}
	e.waitNote(before, func(f frame) bool { return last(chunks([]frame{f})) == "new turn: start" })

	// Bad input: the bridge answers for sessions it does not have, the
	// agent for the rest.
	tests := []struct {
		name   string
		params map[string]any
		code   int
	}{
		{"unknown session", steering("nope", "x", nil), -32002},
		{"empty prompt", map[string]any{"sessionId": sid, "prompt": []any{}}, -32602},
		{"unknown idleBehavior", steering(sid, "x", map[string]any{"steering": map[string]any{"idleBehavior": "queue"}}), -32602},
	}
	for _, tt := range tests {
		if f := e.call("_session/steering", tt.params); f.Error == nil || f.Error.Code != tt.code {
			t.Errorf("%s: answered %s %+v, want %d", tt.name, f.Result, f.Error, tt.code)
		}
	}
}

func fieldOf(t *testing.T, raw json.RawMessage, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m[key]
}
