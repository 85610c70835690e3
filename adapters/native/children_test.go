package native_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// childFrame is what a test reads of one notification or request: its
// method, session, kind of update and, for a subagent_update, the child
// it names.
type childFrame struct {
	Method  string
	Session string
	Kind    string
	Child   string
}

func readChildFrame(f frame) childFrame {
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			Kind      string `json:"sessionUpdate"`
			SessionID string `json:"sessionId"`
		} `json:"update"`
	}
	json.Unmarshal(f.Params, &p)
	return childFrame{Method: f.Method, Session: p.SessionID, Kind: p.Update.Kind, Child: p.Update.SessionID}
}

// TestChildSessionsPassThrough: sub-agent traffic passes through
// unchanged both ways, served alone and through `auto`: the editor's
// clientCapabilities.subagents reaches the agent, the child's announcement
// (subagent_update on the parent), its updates and its permission request
// keep the child's id, a rejected call of the child left without a status
// is reported failed on the child, and session/cancel naming the child
// reaches the agent unchanged without cancelling the parent's turn.
func TestChildSessionsPassThrough(t *testing.T) {
	t.Parallel()
	aloneAndAuto(t, func(t *testing.T, auto bool) {
		e := start(t, options{unstable: true, auto: auto, answer: func(method string, _ json.RawMessage) (any, error) {
			return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "reject"}}, nil
		}})
		sid := e.open(map[string]any{"subagents": map[string]any{}})
		kid := sid + "-kid"
		before := e.noteCount()
		ans := e.request("session/prompt", prompt(sid, "subagent"))
		e.waitNote(before, func(f frame) bool { return last(chunks([]frame{f})) == "child was answered: reject" })
		cancel := map[string]any{"sessionId": kid, "_meta": map[string]any{"why": "enough"}}
		e.notify("session/cancel", cancel)
		f := e.await(ans, "the prompt running a child")
		if got := stopReason(t, f); got != "end_turn" {
			t.Fatalf("stopReason %q, want end_turn: a child's cancel must not cancel the parent's turn", got)
		}
		if got := last(chunks(e.notesSince(before))); got != "child cancelled" {
			t.Errorf("the turn ended saying %q, want the agent's %q", got, "child cancelled")
		}
		checkChildCancel(t, e, cancel)

		var got []childFrame
		for _, n := range e.notesSince(before) {
			// The session's commands, sent as it opened, may still be
			// on their way when the prompt is sent.
			if f := readChildFrame(n); f.Kind != "available_commands_update" {
				got = append(got, f)
			}
		}
		want := []childFrame{
			{"session/update", sid, "subagent_update", kid},
			{"session/update", kid, "agent_message_chunk", ""},
			{"session/update", kid, "tool_call", ""},
			{"session/update", kid, "agent_message_chunk", ""},
			{"session/update", sid, "subagent_update", kid},
			{"session/update", sid, "agent_message_chunk", ""},
			{"session/update", kid, "tool_call_update", ""},
		}
		if !sameFrames(got, want) {
			t.Errorf("notifications\n got %+v\nwant %+v (the last two in either order)", got, want)
		}
		// A child is no session of its own to the editor's other
		// requests: ACP grants it only the cancel its capabilities say.
		if f := e.call("session/set_mode", map[string]any{"sessionId": kid, "modeId": "code"}); f.Error == nil || f.Error.Code != -32002 {
			t.Errorf("session/set_mode of the child: %s %+v, want -32002", f.Result, f.Error)
		}
		asked := e.askedAt("session/request_permission")
		e.mu.Lock()
		var perm childFrame
		for _, a := range e.asked {
			if a.Method == "session/request_permission" {
				perm = readChildFrame(a)
			}
		}
		e.mu.Unlock()
		if len(asked) != 1 || perm.Session != kid {
			t.Errorf("permission requests %v of session %q, want one of the child %q", asked, perm.Session, kid)
		}
	})
}

// sameFrames compares notifications in order, but for the last two: the
// failed status of the child's rejected call is the bridge's, sent as the
// turn ends, after the agent's last text.
func sameFrames(got, want []childFrame) bool {
	if len(got) != len(want) {
		return false
	}
	n := len(want)
	for i := range n - 2 {
		if got[i] != want[i] {
			return false
		}
	}
	return got[n-2] == want[n-2] && got[n-1] == want[n-1] || got[n-2] == want[n-1] && got[n-1] == want[n-2]
}

// checkChildCancel checks that the agent got the editor's session/cancel
// of the child, params unchanged, and no other cancel.
func checkChildCancel(t *testing.T, e *editor, sent map[string]any) {
	t.Helper()
	want, _ := json.Marshal(sent)
	select {
	case got := <-e.cancels:
		if !jsonEqual(got, want) {
			t.Errorf("the agent got session/cancel %s, want the editor's %s", got, want)
		}
	case <-time.After(wait):
		t.Fatal("the agent never got the child's session/cancel")
	}
	select {
	case got := <-e.cancels:
		t.Errorf("the agent got another session/cancel %s", got)
	default:
	}
}

// TestChildSessionsNeedTheCapability: the agent runs no child session for
// an editor that did not advertise subagents: the capability (or its
// absence) reaches it as the editor sent it.
func TestChildSessionsNeedTheCapability(t *testing.T) {
	t.Parallel()
	e := start(t, options{})
	sid := e.open(nil)
	before := e.noteCount()
	f := e.call("session/prompt", prompt(sid, "subagent"))
	if stopReason(t, f) != "end_turn" {
		t.Fatalf("answer %s", f.Result)
	}
	notes := e.notesSince(before)
	if got := chunks(notes); len(got) != 1 || !strings.Contains(got[0], "no subagents") {
		t.Errorf("the turn said %q, want the agent's %q", got, "no subagents")
	}
	for _, n := range notes {
		if readChildFrame(n).Kind == "subagent_update" {
			t.Errorf("a subagent_update for an editor without the capability: %s", n.Params)
		}
	}
}
