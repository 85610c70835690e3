package native_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// toolUpdate is one tool_call or tool_call_update the editor got.
type toolUpdate struct {
	Kind   string `json:"sessionUpdate"`
	ID     string `json:"toolCallId"`
	Status string `json:"status"`
	Title  string `json:"title"`
}

// updates decodes the session/update notifications among notes.
func updates(notes []frame) []map[string]any {
	var out []map[string]any
	for _, f := range notes {
		var p struct {
			Update map[string]any `json:"update"`
		}
		if f.Method == "session/update" && json.Unmarshal(f.Params, &p) == nil {
			out = append(out, p.Update)
		}
	}
	return out
}

// toolStatuses is, for tool call id, the kind and status of each update
// the editor got, in order ("tool_call:pending", "in_progress", ...).
func toolStatuses(notes []frame, id string) []string {
	var out []string
	for _, f := range notes {
		var p struct {
			Update toolUpdate `json:"update"`
		}
		if f.Method != "session/update" || json.Unmarshal(f.Params, &p) != nil || p.Update.ID != id {
			continue
		}
		s := p.Update.Status
		if p.Update.Kind == "tool_call" {
			s = "tool_call:" + s
		}
		out = append(out, s)
	}
	return out
}

// answerPermission answers every permission request with option, or
// with the first reject option when option is "".
func answerPermission(option string) func(string, json.RawMessage) (any, error) {
	return func(method string, params json.RawMessage) (any, error) {
		if method != "session/request_permission" {
			return nil, nil
		}
		if option == "" {
			var p struct {
				Options []struct {
					OptionID string `json:"optionId"`
					Kind     string `json:"kind"`
				} `json:"options"`
			}
			json.Unmarshal(params, &p)
			for _, o := range p.Options {
				if strings.HasPrefix(o.Kind, "reject") {
					return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}, nil
				}
			}
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}, nil
	}
}

// askedPermission is how many notifications the editor had read when it
// was asked the turn's one permission question.
func askedPermission(t *testing.T, e *editor) int {
	t.Helper()
	at := e.askedAt("session/request_permission")
	if len(at) != 1 {
		t.Fatalf("%d permission requests, want 1", len(at))
	}
	return at[0]
}

// TestToolCallAnnounced: a permission request or an update for a tool
// call no tool_call announced (Gemini CLI) is preceded by a tool_call,
// pending, built from what the agent said of the call.
func TestToolCallAnnounced(t *testing.T) {
	t.Parallel()
	t.Run("permission", func(t *testing.T) {
		t.Parallel()
		e := start(t, options{answer: answerPermission("allow")})
		sid := e.open(nil)
		before := e.noteCount()
		stopReason(t, e.call("session/prompt", prompt(sid, "permission gemini")))
		n := askedPermission(t, e)
		if got := toolStatuses(e.notesSince(before)[:n-before], "t1"); !reflect.DeepEqual(got, []string{"tool_call:pending"}) {
			t.Errorf("before the permission request the editor got %q for the call, want a pending tool_call", got)
		}
		if got := toolStatuses(e.notesSince(before), "t1"); !reflect.DeepEqual(got, []string{"tool_call:pending", "completed"}) {
			t.Errorf("tool call updates %q", got)
		}
		for _, u := range updates(e.notesSince(before)) {
			if u["sessionUpdate"] == "tool_call" && (u["title"] != "Write notes.txt" || u["kind"] != "edit") {
				t.Errorf("tool_call %v, want the permission request's title and kind", u)
			}
		}
	})
	t.Run("update", func(t *testing.T) {
		t.Parallel()
		e := start(t, options{})
		sid := e.open(nil)
		before := e.noteCount()
		stopReason(t, e.call("session/prompt", prompt(sid, "unannounced")))
		if got := toolStatuses(e.notesSince(before), "t9"); !reflect.DeepEqual(got, []string{"tool_call:pending", "completed"}) {
			t.Errorf("tool call updates %q, want a pending tool_call before the agent's update", got)
		}
	})
}

// TestRejectedToolCallFails: a call the editor rejected ends failed in the
// editor before the turn's answer: the bridge says so when the agent does
// not (Gemini CLI), and adds nothing when it does.
func TestRejectedToolCallFails(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		style string
		want  []string
	}{
		{"gemini", []string{"tool_call:pending", "failed"}},
		{"", []string{"tool_call:pending", "failed"}},
	} {
		t.Run("style "+tt.style, func(t *testing.T) {
			t.Parallel()
			e := start(t, options{answer: answerPermission("reject")})
			sid := e.open(nil)
			before := e.noteCount()
			f := e.call("session/prompt", prompt(sid, strings.TrimSpace("permission "+tt.style)))
			stopReason(t, f)
			if got := toolStatuses(e.notesSince(before)[:f.notesBefore-before], "t1"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("before the answer the editor got %q for the call, want %q", got, tt.want)
			}
		})
	}
}

// TestInProgressHeldWhileAsking: a call the agent reports in_progress
// before and while its permission is asked (opencode) is put back to
// pending when the question goes out and shown running only once allowed;
// exact repeats are dropped; a rejected call never shows running again.
func TestInProgressHeldWhileAsking(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		option string
		want   []string
	}{
		{"allow", []string{"tool_call:pending", "in_progress", "pending", "in_progress", "completed"}},
		{"reject", []string{"tool_call:pending", "in_progress", "pending", "failed"}},
	} {
		t.Run(tt.option, func(t *testing.T) {
			t.Parallel()
			var sid string
			allow := answerPermission(tt.option)
			e := start(t, options{answerWith: func(e *editor, method string, params json.RawMessage) (any, error) {
				// The agent reports the call in_progress again once
				// poked; its thought "asked" follows.
				n := e.noteCount()
				e.notify("_acpagent/poke", map[string]any{"sessionId": sid})
				e.waitNote(n, func(f frame) bool { return strings.Contains(string(f.Params), `"agent_thought_chunk"`) })
				if got := toolStatuses(e.notesSince(n), "t1"); len(got) != 0 {
					t.Errorf("while the question was out the editor got %q for the call, want nothing", got)
				}
				return allow(method, params)
			}})
			sid = e.open(nil)
			before := e.noteCount()
			stopReason(t, e.call("session/prompt", prompt(sid, "permission opencode")))
			n := askedPermission(t, e)
			if got := toolStatuses(e.notesSince(before)[:n-before], "t1"); last(got) != "pending" {
				t.Errorf("when asked, the editor had %q for the call, want it pending", got)
			}
			if got := toolStatuses(e.notesSince(before), "t1"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tool call updates\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestStatusLineAfterRejection: Copilot CLI's "Info: ..." text right after
// a rejection becomes a notice for an editor that shows notices, and is
// dropped for one that does not; the agent's own text still arrives.
func TestStatusLineAfterRejection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		caps    any
		notices []string
	}{
		{"notices", map[string]any{"session": map[string]any{"notices": map[string]any{}}}, []string{"info: Operation cancelled by user"}},
		{"no notices", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t, options{answer: answerPermission("reject")})
			sid := e.open(tt.caps)
			before := e.noteCount()
			stopReason(t, e.call("session/prompt", prompt(sid, "permission copilot")))
			notes := e.notesSince(before)
			if got := chunks(notes); !reflect.DeepEqual(got, []string{"tool rejected"}) {
				t.Errorf("agent text %q, want only the agent's own", got)
			}
			var got []string
			for _, u := range updates(notes) {
				if u["sessionUpdate"] == "notice" {
					got = append(got, u["severity"].(string)+": "+u["title"].(string))
				}
			}
			if !reflect.DeepEqual(got, tt.notices) {
				t.Errorf("notices %q, want %q", got, tt.notices)
			}
		})
	}
}

// TestCancelledTurnDropsZeroUsage: a cancelled turn's answer whose usage is
// all zeros (opencode) is forwarded without the usage.
func TestCancelledTurnDropsZeroUsage(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	before := e.noteCount()
	ans := e.request("session/prompt", prompt(sid, "slowusage"))
	e.waitNote(before, func(f frame) bool { return len(chunks([]frame{f})) == 1 })
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	f := e.await(ans, "the cancelled prompt")
	if got := stopReason(t, f); got != "cancelled" {
		t.Fatalf("stopReason %q", got)
	}
	if strings.Contains(string(f.Result), "usage") {
		t.Errorf("answer %s still carries the zero usage", f.Result)
	}
}

// TestCancelledTurnAnswersCancelled: an agent that answers a cancelled
// turn end_turn with usage all zeros (opencode, when the cancel comes
// early) is answered "cancelled" without the usage, as ACP requires and
// the README promises.
func TestCancelledTurnAnswersCancelled(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	before := e.noteCount()
	ans := e.request("session/prompt", prompt(sid, "endcancel"))
	e.waitNote(before, func(f frame) bool { return len(chunks([]frame{f})) == 1 })
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	f := e.await(ans, "the cancelled prompt")
	if got := stopReason(t, f); got != "cancelled" {
		t.Fatalf("stopReason %q, want cancelled", got)
	}
	if strings.Contains(string(f.Result), "usage") {
		t.Errorf("answer %s still carries the zero usage", f.Result)
	}
}

// TestCancelReachesAgentUnchanged: the editor's session/cancel reaches the
// agent with its params as sent, _meta and unknown fields included.
func TestCancelReachesAgentUnchanged(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	before := e.noteCount()
	ans := e.request("session/prompt", prompt(sid, "slow"))
	e.waitNote(before, func(f frame) bool { return len(chunks([]frame{f})) == 1 })
	sent := map[string]any{"sessionId": sid, "_meta": map[string]any{"reason": "user pressed stop"}, "x-future": 1}
	e.notify("session/cancel", sent)
	if got := stopReason(t, e.await(ans, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stopReason %q", got)
	}
	cancelReached(t, e, sent)
}

// cancelReached checks that the agent got the editor's session/cancel,
// params unchanged.
func cancelReached(t *testing.T, e *editor, sent map[string]any) {
	t.Helper()
	want, _ := json.Marshal(sent)
	select {
	case got := <-e.cancels:
		if !jsonEqual(got, want) {
			t.Errorf("agent got session/cancel %s, want %s", got, want)
		}
	default:
		t.Fatal("no session/cancel reached the agent")
	}
}

// TestCancelOutsideTurnReachesAgent: ACP's session/cancel cancels the
// session's ongoing operations, not only a turn, and an agent may get it at
// any time (an editor's cancel racing the turn's end, or withdrawing what
// the agent has pending). With no turn running it still reaches the
// session's agent, params unchanged, and before the prompt the editor sent
// after it, which it must not cancel.
func TestCancelOutsideTurnReachesAgent(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	drain(e.toAgent)
	sent := map[string]any{"sessionId": sid, "_meta": map[string]any{"reason": "withdraw"}, "x-future": 1}
	e.notify("session/cancel", sent)
	if got := stopReason(t, e.call("session/prompt", prompt(sid, "hello"))); got != "end_turn" {
		t.Fatalf("the prompt after the cancel ended %q, want end_turn", got)
	}
	cancelReached(t, e, sent)
	if m := drain(e.toAgent); len(m) < 2 || m[0] != "session/cancel" || m[1] != "session/prompt" {
		t.Errorf("the agent was sent %q, want session/cancel before session/prompt", m)
	}
}

// configOption is a select config option as the editor sees it.
type configOption struct {
	ID           string `json:"id"`
	Category     string `json:"category"`
	CurrentValue string `json:"currentValue"`
	Options      []struct {
		Value string `json:"value"`
	} `json:"options"`
}

func (o configOption) values() []string {
	var out []string
	for _, v := range o.Options {
		out = append(out, v.Value)
	}
	return out
}

// openWith opens a session and returns its id and the decoded answer.
func openWith(t *testing.T, e *editor, res any) string {
	t.Helper()
	e.call("initialize", map[string]any{"protocolVersion": 1})
	f := e.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	if f.Error != nil || json.Unmarshal(f.Result, res) != nil {
		t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(f.Result, &r)
	return r.SessionID
}

// TestConfigOptionsFromModes: an agent that offers modes and models but no
// config options (Gemini CLI, Qwen Code) is offered to the editor with a
// mode and a model option too, its current model in the list; setting them
// goes to the agent as session/set_mode and session/set_model; a mode
// change the agent reports is reported as a config change too.
func TestConfigOptionsFromModes(t *testing.T) {
	t.Parallel()
	env := []string{"ACPAGENT_CONFIG=gemini", "ACPAGENT_STATE=" + t.TempDir()}
	e := start(t, options{env: env})
	var opened struct {
		ConfigOptions []configOption `json:"configOptions"`
		Models        struct {
			Available []struct {
				ModelID string `json:"modelId"`
			} `json:"availableModels"`
		} `json:"models"`
		Modes any `json:"modes"`
	}
	sid := openWith(t, e, &opened)
	if len(opened.ConfigOptions) != 2 || opened.Modes == nil {
		t.Fatalf("session/new answer: configOptions %+v, modes %v; want a mode and a model option beside the modes", opened.ConfigOptions, opened.Modes)
	}
	mode, model := opened.ConfigOptions[0], opened.ConfigOptions[1]
	if mode.ID != "mode" || mode.Category != "mode" || mode.CurrentValue != "ask" || !reflect.DeepEqual(mode.values(), []string{"ask", "code"}) {
		t.Errorf("mode option %+v", mode)
	}
	if model.ID != "model" || model.Category != "model" || model.CurrentValue != "fake-model" ||
		!reflect.DeepEqual(model.values(), []string{"auto", "pro", "fake-model"}) {
		t.Errorf("model option %+v, want the current model among the values", model)
	}
	if n := len(opened.Models.Available); n != 3 {
		t.Errorf("models lists %d, want the current one added", n)
	}

	for _, tt := range []struct {
		id, value, method string
	}{
		{"mode", "code", "session/set_mode"},
		{"model", "pro", "session/set_model"},
	} {
		drain(e.toAgent)
		f := e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": tt.id, "value": tt.value})
		var r struct {
			ConfigOptions []configOption `json:"configOptions"`
		}
		if f.Error != nil || json.Unmarshal(f.Result, &r) != nil {
			t.Fatalf("set_config_option %s: %s %+v", tt.id, f.Result, f.Error)
		}
		for _, o := range r.ConfigOptions {
			if o.ID == tt.id && o.CurrentValue != tt.value {
				t.Errorf("after setting %s to %s the answer says %s", tt.id, tt.value, o.CurrentValue)
			}
		}
		if m := drain(e.toAgent); !contains(m, tt.method) {
			t.Errorf("bridge sent %v to the agent, want %s", m, tt.method)
		}
	}

	// The agent's own method, used by the editor: the options follow.
	if f := e.call("session/set_model", map[string]any{"sessionId": sid, "modelId": "auto"}); f.Error != nil {
		t.Fatalf("set_model: %+v", f.Error)
	}
	f := e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "ask"})
	var r struct {
		ConfigOptions []configOption `json:"configOptions"`
	}
	json.Unmarshal(f.Result, &r)
	if len(r.ConfigOptions) != 2 || r.ConfigOptions[1].CurrentValue != "auto" {
		t.Errorf("after set_model auto the options are %+v", r.ConfigOptions)
	}

	before := e.noteCount()
	stopReason(t, e.call("session/prompt", prompt(sid, "switch ask")))
	var got []string
	for _, u := range updates(e.notesSince(before)) {
		switch u["sessionUpdate"] {
		case "current_mode_update":
			got = append(got, "current_mode_update "+u["currentModeId"].(string))
		case "config_option_update":
			b, _ := json.Marshal(u["configOptions"])
			var opts []configOption
			json.Unmarshal(b, &opts)
			for _, o := range opts {
				got = append(got, "config_option_update "+o.ID+"="+o.CurrentValue)
			}
		}
	}
	want := []string{"current_mode_update ask", "config_option_update mode=ask", "config_option_update model=auto"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after the agent switched mode the editor got\n %q\nwant %q", got, want)
	}

	// A load's answer is completed the same way.
	e2 := start(t, options{env: env})
	e2.call("initialize", map[string]any{"protocolVersion": 1})
	f = e2.call("session/load", map[string]any{"sessionId": sid, "cwd": t.TempDir(), "mcpServers": []any{}})
	var loaded struct {
		ConfigOptions []configOption `json:"configOptions"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &loaded) != nil || len(loaded.ConfigOptions) != 2 {
		t.Errorf("session/load answer %s %+v, want the mode and model options", f.Result, f.Error)
	}
}

// TestModesFromConfigOption: an agent that offers its mode only as a config
// option (Copilot CLI) is offered to the editor with modes too; set_mode
// goes to the agent as set_config_option, and a mode change the agent
// reports as a config change is reported as a mode change too.
func TestModesFromConfigOption(t *testing.T) {
	t.Parallel()
	e := start(t, options{env: []string{"ACPAGENT_CONFIG=copilot"}})
	var opened struct {
		Modes *struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
	}
	sid := openWith(t, e, &opened)
	if opened.Modes == nil || opened.Modes.CurrentModeID != "ask" || len(opened.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new answer modes %+v, want ask of ask and code", opened.Modes)
	}
	drain(e.toAgent)
	if f := e.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "code"}); f.Error != nil {
		t.Fatalf("set_mode: %+v", f.Error)
	}
	if m := drain(e.toAgent); !contains(m, "session/set_config_option") {
		t.Errorf("bridge sent %v to the agent, want session/set_config_option", m)
	}
	// The agent's own method, used by the editor: the modes follow.
	if f := e.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "ask"}); f.Error != nil {
		t.Fatalf("set_config_option: %+v", f.Error)
	}
	before := e.noteCount()
	stopReason(t, e.call("session/prompt", prompt(sid, "switch code")))
	var got []string
	for _, u := range updates(e.notesSince(before)) {
		if k := u["sessionUpdate"].(string); k == "current_mode_update" {
			got = append(got, k+" "+u["currentModeId"].(string))
		} else if k == "config_option_update" {
			got = append(got, k)
		}
	}
	if want := []string{"config_option_update", "current_mode_update code"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the agent switched mode the editor got %q, want %q", got, want)
	}
}

// TestLoadWithheld: an agent whose session/load loses the stored session
// (Gemini CLI, known by its agentInfo name) is not offered to the editor
// with loadSession, and a load the editor asks anyway is refused by the
// bridge without reaching an agent; a session whose agent died cannot be
// re-attached by load either.
func TestLoadWithheld(t *testing.T) {
	t.Parallel()
	e := start(t, options{env: []string{"ACPAGENT_NAME=gemini-cli"}})
	f := e.call("initialize", map[string]any{"protocolVersion": 1})
	var init struct {
		Caps map[string]any `json:"agentCapabilities"`
	}
	if json.Unmarshal(f.Result, &init) != nil || init.Caps["loadSession"] != false {
		t.Fatalf("initialize answer %s, want loadSession false", f.Result)
	}
	f = e.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(f.Result, &r)
	stopReason(t, e.call("session/prompt", prompt(r.SessionID, "remember me")))
	drain(e.toAgent)

	e2 := start(t, options{env: []string{"ACPAGENT_NAME=gemini-cli"}})
	e2.call("initialize", map[string]any{"protocolVersion": 1})
	f = e2.call("session/load", map[string]any{"sessionId": r.SessionID, "cwd": t.TempDir(), "mcpServers": []any{}})
	if f.Error == nil || f.Error.Code != -32601 {
		t.Errorf("session/load answered %s %+v, want the bridge's -32601", f.Result, f.Error)
	}
	if m := drain(e2.toAgent); contains(m, "session/load") {
		t.Errorf("the load reached an agent: %v", m)
	}

	if f := e.call("session/prompt", prompt(r.SessionID, "die")); f.Error == nil {
		t.Fatalf("prompt answered %s after the agent died", f.Result)
	}
	f = e.call("session/prompt", prompt(r.SessionID, "still there?"))
	if f.Error == nil || !strings.Contains(f.Error.Message, "open a new session") {
		t.Errorf("prompt after the agent died: %s %+v, want an error saying to open a new session", f.Result, f.Error)
	}
	if m := drain(e.toAgent); contains(m, "session/load") {
		t.Errorf("the re-attach sent session/load: %v", m)
	}
}

// TestRepeatedCommandsDropped: an available_commands_update equal to the
// last one the session's editor got (Qwen Code repeats its list after
// turns), key order aside, is dropped; a changed list passes, once.
func TestRepeatedCommandsDropped(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	if got := stopReason(t, e.call("session/prompt", prompt(sid, "commands"))); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	lists := commandLists(e.notesSince(0))
	want := []string{`[{"description":"say hello","name":"hello"}]`,
		`[{"description":"say hello","name":"hello"},{"description":"say bye","name":"bye"}]`}
	if !reflect.DeepEqual(lists, want) {
		t.Errorf("the editor got command lists\n%s\nwant\n%s", strings.Join(lists, "\n"), strings.Join(want, "\n"))
	}
}

// commandLists returns the availableCommands of each
// available_commands_update among notes, in a canonical form (keys sorted).
func commandLists(notes []frame) []string {
	var out []string
	for _, f := range notes {
		var p struct {
			Update struct {
				Kind     string `json:"sessionUpdate"`
				Commands any    `json:"availableCommands"`
			} `json:"update"`
		}
		if f.Method != "session/update" || json.Unmarshal(f.Params, &p) != nil || p.Update.Kind != "available_commands_update" {
			continue
		}
		b, _ := json.Marshal(p.Update.Commands)
		out = append(out, string(b))
	}
	return out
}
