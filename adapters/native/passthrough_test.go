package native_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestInitializeMapsCapabilities: the editor is offered what the agent
// advertised (its _meta included) plus session/close, which the bridge
// serves, and nothing else.
func TestInitializeMapsCapabilities(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var got map[string]any
	if err := json.Unmarshal(f.Result, &got); err != nil {
		t.Fatalf("initialize: %s %+v", f.Result, f.Error)
	}
	want := map[string]any{
		"loadSession":         true,
		"promptCapabilities":  map[string]any{"image": true, "embeddedContext": true},
		"_meta":               map[string]any{"acpagent": map[string]any{"scripted": true}},
		"sessionCapabilities": map[string]any{"close": map[string]any{}},
	}
	if caps := got["agentCapabilities"]; !reflect.DeepEqual(caps, want) {
		t.Errorf("agentCapabilities\n got %v\nwant %v", caps, want)
	}
	if info, _ := got["agentInfo"].(map[string]any); info["name"] != "acpagent" {
		t.Errorf("agentInfo %v, want the agent's own", got["agentInfo"])
	}
}

// TestTextTurnPassesThrough: a streamed turn reaches the editor unchanged
// (unknown fields and _meta in answers and updates kept), every update of
// the turn before its answer.
func TestTextTurnPassesThrough(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	e.call("initialize", map[string]any{"protocolVersion": 1})
	f := e.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	// The agent sent its commands before this answer; the editor must get
	// them after it (clients drop updates for sessions they do not know).
	isCommands := func(f frame) bool { return strings.Contains(string(f.Params), `"available_commands_update"`) }
	for _, n := range e.notesSince(0)[:f.notesBefore] {
		if isCommands(n) {
			t.Errorf("available_commands_update reached the editor before the session/new answer")
		}
	}
	e.waitNote(0, isCommands)
	var opened map[string]any
	json.Unmarshal(f.Result, &opened)
	if opened["x-future"] != "kept" || opened["modes"] == nil {
		t.Fatalf("session/new answer lost the agent's fields: %s", f.Result)
	}
	sid := opened["sessionId"].(string)
	const n = 200
	before := e.noteCount()
	f = e.call("session/prompt", prompt(sid, "stream 200"))
	// The answer has been read: every update of the turn must be in by now.
	got := chunks(e.notesSince(before))
	if len(got) != n+1 || last(got) != "streamed 200" {
		t.Fatalf("%d chunks before the answer (last %q), want %d then %q", len(got), last(got), n, "streamed 200")
	}
	if stopReason(t, f) != "end_turn" || !strings.Contains(string(f.Result), `"_meta":{"acpagent":"done"}`) {
		t.Errorf("prompt answer %s, want the agent's, _meta included", f.Result)
	}
	notes := e.notesSince(before)
	if !strings.Contains(string(notes[len(notes)-1].Params), `"_meta":{"acpagent":"turn"}`) {
		t.Errorf("update lost its _meta: %s", notes[len(notes)-1].Params)
	}
	if e.check.Checked() == 0 {
		t.Fatal("no frame was validated")
	}
}

// TestPermission: the agent's permission request reaches the editor and
// the editor's choice comes back to the agent, allowed and rejected.
func TestPermission(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		option, want string
	}{
		{"allow", "tool allowed"},
		{"reject", "tool rejected"},
	} {
		t.Run(tt.option, func(t *testing.T) {
			asked := make(chan json.RawMessage, 1)
			e := start(t, options{answer: func(method string, params json.RawMessage) (any, error) {
				if method != "session/request_permission" {
					t.Errorf("unexpected request %s", method)
				}
				asked <- params
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": tt.option}}, nil
			}})
			sid := e.open(nil)
			before := e.noteCount()
			f := e.call("session/prompt", prompt(sid, "permission"))
			if stopReason(t, f) != "end_turn" {
				t.Fatalf("answer %s", f.Result)
			}
			if got := last(chunks(e.notesSince(before))); got != tt.want {
				t.Errorf("agent said %q, want %q", got, tt.want)
			}
			p := <-asked
			if !strings.Contains(string(p), `"sessionId":"`+sid+`"`) || !strings.Contains(string(p), `"optionId":"reject"`) {
				t.Errorf("permission request not passed through: %s", p)
			}
		})
	}
}

// TestFsRequest: fs/read_text_file from the agent is asked of the editor
// and the content goes back.
func TestFsRequest(t *testing.T) {
	t.Parallel()
	e := start(t, options{answer: func(method string, params json.RawMessage) (any, error) {
		if method != "fs/read_text_file" || !strings.Contains(string(params), `"path":"/w/notes.txt"`) {
			t.Errorf("got %s %s", method, params)
		}
		return map[string]any{"content": "hello from the editor"}, nil
	}})
	sid := e.open(map[string]any{"fs": map[string]any{"readTextFile": true}})
	before := e.noteCount()
	stopReason(t, e.call("session/prompt", prompt(sid, "read /w/notes.txt")))
	if got := last(chunks(e.notesSince(before))); got != "read: hello from the editor" {
		t.Errorf("agent said %q", got)
	}
}

// TestExtensions: extension notifications and requests pass both ways with
// their _meta; an editor's error answer reaches the agent with its code.
func TestExtensions(t *testing.T) {
	t.Parallel()
	e := start(t, options{answer: func(method string, params json.RawMessage) (any, error) {
		if method != "_acpagent/ask" || !strings.Contains(string(params), `"_meta":{"trace":"abc"}`) {
			t.Errorf("extension request not passed through: %s %s", method, params)
		}
		return map[string]any{"yes": true}, nil
	}})
	sid := e.open(nil)
	before := e.noteCount()
	stopReason(t, e.call("session/prompt", prompt(sid, "ext")))
	notes := e.notesSince(before)
	var notice *frame
	for i := range notes {
		if notes[i].Method == "_acpagent/notice" {
			notice = &notes[i]
		}
	}
	if notice == nil || !strings.Contains(string(notice.Params), `"_meta":{"trace":"abc"}`) {
		t.Errorf("extension notification not passed through: %+v", notes)
	}
	if got := last(chunks(notes)); got != `client said: {"yes":true}` {
		t.Errorf("agent said %q", got)
	}

	params := map[string]any{"sessionId": sid, "x": []any{1, "two"}, "_meta": map[string]any{"k": "v"}}
	f := e.call("_acpagent/echo", params)
	var echoed map[string]any
	json.Unmarshal(f.Result, &echoed)
	if want, _ := json.Marshal(params); !jsonEqual(f.Result, want) {
		t.Errorf("extension method answer %s, want %s", f.Result, want)
	}
	if f := e.call("_acpagent/echo", map[string]any{"no": "session"}); !jsonEqual(f.Result, []byte(`{"no":"session"}`)) {
		t.Errorf("session-less extension method answer %s %+v", f.Result, f.Error)
	}
	if f := e.call("_acpagent/unknown", map[string]any{"sessionId": sid}); f.Error == nil || f.Error.Code != -32601 {
		t.Errorf("agent's method-not-found not passed through: %s %+v", f.Result, f.Error)
	}

	before = e.noteCount()
	e.notify("_acpagent/poke", map[string]any{"sessionId": sid, "_meta": map[string]any{"n": 1}})
	got := e.waitNote(before, func(f frame) bool { return f.Method == "_acpagent/poked" })
	if !strings.Contains(string(got.Params), `"_meta":{"n":1}`) {
		t.Errorf("notification lost its _meta on the way: %s", got.Params)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestBadInputStaysInTheBridge: invalid params are answered by the bridge
// as for every adapter, not forwarded.
func TestBadInputStaysInTheBridge(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	for _, tt := range []struct {
		name   string
		method string
		params any
		code   int
	}{
		{"prompt without prompt", "session/prompt", map[string]any{"sessionId": sid}, -32602},
		{"prompt for an unknown session", "session/prompt", prompt("nope", "hi"), -32002},
		{"set_mode for an unknown session", "session/set_mode", map[string]any{"sessionId": "nope", "modeId": "code"}, -32002},
		{"new without cwd", "session/new", map[string]any{"mcpServers": []any{}}, -32602},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := e.call(tt.method, tt.params)
			if f.Error == nil || f.Error.Code != tt.code {
				t.Errorf("got %s %+v, want error %d", f.Result, f.Error, tt.code)
			}
		})
	}
}

// TestCancel: session/cancel reaches the agent at once; an agent that
// honours it answers itself, one that ignores it is stopped after the grace
// and the turn is answered "cancelled" anyway, with nothing of the turn
// after the answer; the next prompt starts the agent again.
func TestCancel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script   string
		wantMeta bool // the agent's own answer
	}{
		{"slow", true},
		{"hang", false},
	} {
		t.Run(tt.script, func(t *testing.T) {
			const grace = 300 * time.Millisecond
			e := start(t, options{grace: grace})
			sid := e.open(nil)
			before := e.noteCount()
			ans := e.request("session/prompt", prompt(sid, tt.script))
			e.waitNote(before, func(f frame) bool { return len(chunks([]frame{f})) == 1 })
			sent := time.Now()
			e.notify("session/cancel", map[string]any{"sessionId": sid})
			f := e.await(ans, "the cancelled prompt")
			took := time.Since(sent)
			if got := stopReason(t, f); got != "cancelled" {
				t.Fatalf("stopReason %q, want cancelled", got)
			}
			if has := strings.Contains(string(f.Result), "_meta"); has != tt.wantMeta {
				t.Errorf("answer %s: the agent's own answer = %v, want %v", f.Result, has, tt.wantMeta)
			}
			if !tt.wantMeta && took < grace {
				t.Errorf("answered after %v, before the grace %v", took, grace)
			}
			if took > grace+10*time.Second {
				t.Errorf("answered after %v", took)
			}
			after := e.noteCount()
			f = e.call("session/prompt", prompt(sid, "hello again"))
			if stopReason(t, f) != "end_turn" {
				t.Fatalf("next prompt: %s", f.Result)
			}
			got := chunks(e.notesSince(after))
			if !reflect.DeepEqual(got, []string{"echo: hello again"}) {
				t.Errorf("after the cancelled turn the editor got %q, want only the next turn's answer", got)
			}
		})
	}
}

// TestAgentDiesMidTurn: the open prompt gets an error naming the agent, its
// exit status and its stderr; the next prompt restarts the agent and
// re-attaches the session (load, or resume when advertised) without
// replaying history to the editor; an agent that can do neither gets a
// clear error.
func TestAgentDiesMidTurn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		env     []string
		reopen  string // method the bridge re-attaches with; "" none
		wantErr string
	}{
		{"load", nil, "session/load", ""},
		{"resume", []string{"ACPAGENT_RESUME=1"}, "session/resume", ""},
		{"neither", []string{"ACPAGENT_LOAD=0"}, "", "neither session/load nor session/resume"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t, options{env: tt.env})
			sid := e.open(nil)
			stopReason(t, e.call("session/prompt", prompt(sid, "first turn")))
			f := e.call("session/prompt", prompt(sid, "die"))
			if f.Error == nil {
				t.Fatalf("prompt answered %s after the agent died, want an error", f.Result)
			}
			for _, want := range []string{"acpagent", "exit status 3", "scripted crash"} {
				if !strings.Contains(f.Error.Message, want) {
					t.Errorf("error %q does not mention %q", f.Error.Message, want)
				}
			}
			drain(e.toAgent)
			after := e.noteCount()
			f = e.call("session/prompt", prompt(sid, "still there?"))
			if tt.wantErr != "" {
				if f.Error == nil || !strings.Contains(f.Error.Message, tt.wantErr) {
					t.Fatalf("got %s %+v, want an error saying %q", f.Result, f.Error, tt.wantErr)
				}
				return
			}
			if stopReason(t, f) != "end_turn" {
				t.Fatalf("prompt after restart: %s", f.Result)
			}
			if got := chunks(e.notesSince(after)); !reflect.DeepEqual(got, []string{"echo: still there?"}) {
				t.Errorf("editor got %q, want the new turn only (no replayed history)", got)
			}
			if m := drain(e.toAgent); !contains(m, tt.reopen) {
				t.Errorf("bridge sent %v to the new agent, want %s", m, tt.reopen)
			}
		})
	}
}

func drain(ch chan string) []string {
	var out []string
	for {
		select {
		case m := <-ch:
			out = append(out, m)
		default:
			return out
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestLoadReplaysToTheEditor: a session/load the editor asks for (a new
// bridge, say) is the agent's, history included.
func TestLoadReplaysToTheEditor(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := []string{"ACPAGENT_STATE=" + state}
	e := start(t, options{env: env})
	sid := e.open(nil)
	stopReason(t, e.call("session/prompt", prompt(sid, "remember me")))

	e2 := start(t, options{env: env})
	e2.call("initialize", map[string]any{"protocolVersion": 1})
	f := e2.call("session/load", map[string]any{"sessionId": sid, "cwd": t.TempDir(), "mcpServers": []any{}})
	if f.Error != nil {
		t.Fatalf("load: %+v", f.Error)
	}
	if got := chunks(e2.notesSince(0)); !reflect.DeepEqual(got, []string{"echo: remember me"}) {
		t.Errorf("history %q", got)
	}
	stopReason(t, e2.call("session/prompt", prompt(sid, "and now")))
}

// TestAuthenticateReachesEverySession: the editor logs in once; every agent
// process the bridge starts afterwards (one per session) is logged in too.
func TestAuthenticateReachesEverySession(t *testing.T) {
	t.Parallel()
	e := start(t, options{env: []string{"ACPAGENT_AUTH=1"}})
	e.call("initialize", map[string]any{"protocolVersion": 1})
	newSession := func() frame {
		return e.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	}
	if f := newSession(); f.Error == nil || f.Error.Code != -32000 {
		t.Fatalf("session/new before authenticate: %s %+v, want the agent's -32000", f.Result, f.Error)
	}
	if f := e.call("authenticate", map[string]any{"methodId": "key"}); f.Error != nil {
		t.Fatalf("authenticate: %+v", f.Error)
	}
	for i := 0; i < 2; i++ {
		f := newSession()
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if f.Error != nil || json.Unmarshal(f.Result, &r) != nil {
			t.Fatalf("session/new %d after authenticate: %+v", i, f.Error)
		}
		if stopReason(t, e.call("session/prompt", prompt(r.SessionID, "hi"))) != "end_turn" {
			t.Fatal("prompt failed")
		}
	}
}

// TestCancelWithdrawsPermission: a permission question pending when the
// editor cancels is withdrawn from the editor and answered "cancelled" to
// the agent, which ends its turn itself.
func TestCancelWithdrawsPermission(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{}, 1)
	never := make(chan struct{})
	e := start(t, options{answer: func(method string, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-never // the user never answers
		return nil, nil
	}})
	t.Cleanup(func() { close(never) })
	sid := e.open(nil)
	before := e.noteCount()
	ans := e.request("session/prompt", prompt(sid, "permission"))
	select {
	case <-asked:
	case <-time.After(wait):
		t.Fatal("permission never asked")
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	f := e.await(ans, "the cancelled prompt")
	if stopReason(t, f) != "cancelled" || !strings.Contains(string(f.Result), "_meta") {
		t.Errorf("answer %s, want the agent's own cancelled answer", f.Result)
	}
	withdrawn := e.waitNote(before, func(f frame) bool { return f.Method == "$/cancel_request" })
	if !strings.Contains(string(withdrawn.Params), "requestId") {
		t.Errorf("withdrawal %s", withdrawn.Params)
	}
}

// TestQuirksFixed: what Qwen Code sends that fails ACP is smoothed over:
// an un-prefixed extension request is answered method-not-found by the
// bridge (the editor never sees it), an un-prefixed notification and an
// empty message chunk are dropped. The schema check of every frame (in the
// harness) is what a strict client would do.
func TestQuirksFixed(t *testing.T) {
	t.Parallel()
	e := start(t, options{answer: func(method string, _ json.RawMessage) (any, error) {
		t.Errorf("the editor was asked %s", method)
		return nil, nil
	}})
	sid := e.open(nil)
	before := e.noteCount()
	stopReason(t, e.call("session/prompt", prompt(sid, "quirks")))
	notes := e.notesSince(before)
	for _, f := range notes {
		if !strings.HasPrefix(f.Method, "session/") {
			t.Errorf("the editor got %s", f.Method)
		}
	}
	if got := chunks(notes); len(got) != 1 || !strings.HasPrefix(got[0], `drain answered: {"code":-32601`) {
		t.Errorf("chunks %q, want only the agent's report of a -32601 answer", got)
	}
}
