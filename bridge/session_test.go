package bridge_test

import (
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestLoadReplaysHistoryBeforeTheAnswer(t *testing.T) {
	a := loadingAdapter{&scriptAdapter{
		history: []acp.SessionUpdate{
			acp.UpdateUserText("hello"),
			acp.UpdateAgentText("hi there"),
		},
		commands: []acp.AvailableCommand{{Name: "init", Description: "Set up"}},
	}}
	e := startEditor(t, a)
	e.initialize()
	res, before := e.result(e.call("session/load", map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}))
	if len(before) != 2 || updateKind(before[0]) != "user_message_chunk" || updateKind(before[1]) != "agent_message_chunk" {
		t.Fatalf("history before the load answer = %v", before)
	}
	if res["modes"] == nil || res["configOptions"] == nil {
		t.Errorf("load answer lacks modes or configOptions: %v", res)
	}
	if k := updateKind(e.next()); k != "available_commands_update" {
		t.Errorf("after the load answer: %q, want available_commands_update", k)
	}
	// The loaded session serves prompts.
	if r, _ := e.result(e.call("session/prompt", prompt("stored"))); r["stopReason"] != "end_turn" {
		t.Errorf("prompt on loaded session: %v", r)
	}
	// Loading it again while it is open re-attaches: the open session is
	// closed and the history replayed again (a client that lost messages
	// gets them all back).
	_, again := e.result(e.call("session/load", map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}))
	if len(again) != 2 {
		t.Errorf("second load replayed %d updates, want the 2 of the history", len(again))
	}
	if closed := a.closedSessions(); len(closed) != 1 || closed[0] != "stored" {
		t.Errorf("closed sessions after the second load = %v, want the first instance closed", closed)
	}
	e.next() // its available_commands_update
	// Unknown ids are not found.
	ans, _ := e.answer(e.call("session/load", map[string]any{"sessionId": "missing", "cwd": "/tmp", "mcpServers": []any{}}))
	if ans["error"].(map[string]any)["code"] != float64(-32002) {
		t.Errorf("load of unknown id: %v, want -32002", ans)
	}
}

func TestReattachRefusedDuringATurn(t *testing.T) {
	started := make(chan struct{}, 1)
	a := loadingAdapter{&scriptAdapter{turn: blockingTurn(started)}}
	e := startEditor(t, a)
	e.initialize()
	e.result(e.call("session/resume", map[string]any{"sessionId": "stored", "cwd": "/tmp"}))
	id := e.call("session/prompt", prompt("stored"))
	<-started
	for _, m := range []string{"session/load", "session/resume"} {
		ans, _ := e.answer(e.call(m, map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}))
		if ans["error"].(map[string]any)["code"] != float64(-32600) {
			t.Errorf("%s during a turn: %v, want -32600", m, ans)
		}
	}
	e.notify("session/cancel", map[string]any{"sessionId": "stored"})
	e.answer(id)
	// Idle again: resume re-attaches to the open session without closing it.
	e.result(e.call("session/resume", map[string]any{"sessionId": "stored", "cwd": "/tmp"}))
	if n := len(a.closedSessions()); n != 0 {
		t.Errorf("resume of an open session closed %d sessions, want none", n)
	}
}

func TestResumeDoesNotReplay(t *testing.T) {
	a := loadingAdapter{&scriptAdapter{history: []acp.SessionUpdate{acp.UpdateUserText("hello")}}}
	e := startEditor(t, a)
	e.initialize()
	_, before := e.result(e.call("session/resume", map[string]any{"sessionId": "stored", "cwd": "/tmp"}))
	if len(before) != 0 {
		t.Fatalf("resume wrote %v before its answer", before)
	}
	res, _ := e.result(e.call("session/list", map[string]any{}))
	jsonEqual(t, res, `{"sessions":[{"sessionId":"stored","cwd":"/tmp","title":"A stored session"}]}`)
}

func TestCloseStopsTheSession(t *testing.T) {
	a := &scriptAdapter{}
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	e.result(e.call("session/close", map[string]any{"sessionId": sid}))
	if got := a.closedSessions(); len(got) != 1 || string(got[0]) != sid {
		t.Fatalf("closed sessions = %v, want [%s]", got, sid)
	}
	ans, _ := e.answer(e.call("session/prompt", prompt(sid)))
	if ans["error"].(map[string]any)["code"] != float64(-32002) {
		t.Errorf("prompt after close: %v, want -32002", ans)
	}
}

func TestEOFClosesEverySession(t *testing.T) {
	a := &scriptAdapter{}
	e := startEditor(t, a)
	e.initialize()
	e.newSession()
	e.newSession()
	e.w.Close()
	if err := <-e.done; err != nil {
		t.Fatalf("serve ended with %v, want nil on EOF", err)
	}
	e.done <- nil // for the cleanup
	if n := len(a.closedSessions()); n != 2 {
		t.Fatalf("%d sessions closed at EOF, want 2", n)
	}
}

func TestModesAndConfigOptions(t *testing.T) {
	e := startEditor(t, &scriptAdapter{})
	e.initialize()
	sid := e.newSession()

	_, before := e.result(e.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"}))
	if len(before) != 2 || updateKind(before[0]) != "current_mode_update" || updateKind(before[1]) != "config_option_update" {
		t.Fatalf("set_mode updates = %v", before)
	}
	ans, _ := e.answer(e.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "yolo"}))
	jsonEqual(t, ans["error"], `{"code":-32602,"message":"Invalid params: modeId: \"yolo\" is not one of the session's availableModes",
		"data":{"field":"modeId","reason":"\"yolo\" is not one of the session's availableModes"}}`)

	res, _ := e.result(e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "large"}))
	opts := res["configOptions"].([]any)
	if len(opts) != 2 {
		t.Fatalf("set_config_option must answer the full list, got %v", res)
	}
	if cur := opts[1].(map[string]any)["currentValue"]; cur != "large" {
		t.Errorf("model currentValue = %v", cur)
	}
	ans, _ = e.answer(e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "huge"}))
	jsonEqual(t, ans["error"], `{"code":-32602,"message":"Invalid params: value: \"huge\" is not a value of option \"model\"",
		"data":{"field":"value","reason":"\"huge\" is not a value of option \"model\""}}`)
	ans, _ = e.answer(e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "colour", "value": "red"}))
	if ans["error"].(map[string]any)["code"] != float64(-32602) {
		t.Errorf("unknown configId: %v", ans)
	}

	// The legacy session/set_model goes through the model option.
	e.result(e.call("session/set_model", map[string]any{"sessionId": sid, "modelId": "small"}))
	res, _ = e.result(e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "default"}))
	if cur := res["configOptions"].([]any)[1].(map[string]any)["currentValue"]; cur != "small" {
		t.Errorf("after set_model small, model = %v", cur)
	}
	ans, _ = e.answer(e.call("session/set_model", map[string]any{"sessionId": sid, "modelId": "huge"}))
	if ans["error"].(map[string]any)["data"].(map[string]any)["field"] != "modelId" {
		t.Errorf("set_model with an unknown model: %v", ans)
	}
}

func TestAuthenticationRequired(t *testing.T) {
	a := &authAdapter{scriptAdapter: &scriptAdapter{}}
	e := startEditor(t, a)
	e.initialize()
	ans, _ := e.answer(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
	jsonEqual(t, ans["error"], `{"code":-32000,"message":"Authentication required",
		"data":{"authMethods":[{"id":"login","name":"Log in"}]}}`)
	e.result(e.call("authenticate", map[string]any{"methodId": "login"}))
	sid := e.newSession()
	e.result(e.call("logout", map[string]any{}))
	ans, _ = e.answer(e.call("session/prompt", prompt(sid)))
	if ans["error"].(map[string]any)["code"] != float64(-32000) {
		t.Errorf("prompt after logout: %v, want -32000", ans)
	}
}

// TestRequestsPipedBeforeEOFAreAnswered sends a burst of requests and closes
// stdin at once, as a scripted client does: every request gets its answer
// before the bridge exits, and a running turn ends cancelled.
func TestRequestsPipedBeforeEOFAreAnswered(t *testing.T) {
	started := make(chan struct{}, 1)
	e := startEditor(t, loadingAdapter{&scriptAdapter{turn: blockingTurn(started)}})
	e.initialize()
	sid := e.newSession()
	prompt := e.call("session/prompt", prompt(sid))
	<-started
	ids := []int{
		e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}),
		e.call("session/list", map[string]any{}),
		e.call("session/load", map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}),
		e.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"}),
	}
	e.w.Close()
	answered := map[float64]map[string]any{}
	for m := range e.frames {
		if m["method"] == nil {
			answered[m["id"].(float64)] = m
		}
	}
	for _, id := range ids {
		if answered[float64(id)] == nil {
			t.Errorf("request %d was never answered", id)
		}
	}
	if res, _ := answered[float64(prompt)]["result"].(map[string]any); res["stopReason"] != "cancelled" {
		t.Errorf("running turn answered %v at EOF, want stopReason cancelled", answered[float64(prompt)])
	}
}
