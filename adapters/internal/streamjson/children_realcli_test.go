package streamjson

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// childEditor is an editor that takes child sessions
// (clientCapabilities.subagents): it keeps every update and permission
// request of the session and its children, in the order they were sent,
// each checked against the pinned unstable schema.
type childEditor struct {
	acptest.Client // the calls a sub-agent scenario does not make
	t              *testing.T
	v              *acptest.Validator
	// ask answers a permission request; nil allows once.
	ask func(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse

	mu     sync.Mutex
	frames []childFrame // guarded by mu
}

// childFrame is one update (u) or permission request (perm) as sent.
type childFrame struct {
	session acp.SessionID
	u       map[string]any
	perm    *acp.RequestPermissionRequest
}

var (
	_ acp.Client      = (*childEditor)(nil)
	_ acp.ChildClient = (*childEditor)(nil)
)

func newChildEditor(t *testing.T) *childEditor {
	return &childEditor{t: t, v: acptest.LoadUnstable(t)}
}

// view is the editor as one session sees it: id "" is the parent's,
// which the adapter stamps itself.
type childView struct {
	*childEditor
	id acp.SessionID
}

func (e *childEditor) Child(id acp.SessionID) acp.Client { return &childView{e, id} }

func (e *childEditor) Capabilities() acp.ClientCapabilities {
	return acp.ClientCapabilities{Subagents: &acp.SubagentCapabilities{}}
}

func (e *childEditor) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	return e.record(n)
}

func (e *childEditor) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return e.permission(ctx, r)
}

func (v *childView) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	n.SessionID = v.id
	return v.record(n)
}

func (v *childView) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	r.SessionID = v.id
	return v.permission(ctx, r)
}

func (e *childEditor) record(n acp.SessionNotification) error {
	raw, err := json.Marshal(n)
	if err != nil {
		e.t.Error(err)
	}
	if err := e.v.Validate("SessionNotification", raw); err != nil {
		e.t.Errorf("update not in the unstable schema: %v\n%s", err, raw)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	u, _ := m["update"].(map[string]any)
	e.mu.Lock()
	e.frames = append(e.frames, childFrame{session: n.SessionID, u: u})
	e.mu.Unlock()
	return nil
}

func (e *childEditor) permission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	raw, _ := json.Marshal(r)
	if err := e.v.Validate("RequestPermissionRequest", raw); err != nil {
		e.t.Errorf("permission request not in the unstable schema: %v\n%s", err, raw)
	}
	e.mu.Lock()
	e.frames = append(e.frames, childFrame{session: r.SessionID, perm: &r})
	e.mu.Unlock()
	if e.ask != nil {
		return e.ask(ctx, r), nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
}

func (e *childEditor) all() []childFrame {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]childFrame(nil), e.frames...)
}

// states are the subagent_update states the parent was sent for child, in
// order, as "state" or "state/stopReason".
func states(frames []childFrame, parent, child acp.SessionID) []string {
	var out []string
	for _, f := range frames {
		if f.u["sessionUpdate"] != "subagent_update" || f.u["sessionId"] != string(child) {
			continue
		}
		if f.session != parent {
			out = append(out, "(on "+string(f.session)+")")
		}
		st, _ := f.u["state"].(map[string]any)
		s, _ := st["state"].(string)
		if r, ok := st["stopReason"].(string); ok {
			s += "/" + r
		}
		out = append(out, s)
	}
	return out
}

// checkChildOrder checks that the child is announced on the parent before
// any of its frames, that nothing of it is the parent's text, and returns
// the child's id.
func checkChildOrder(t *testing.T, frames []childFrame, parent acp.SessionID) acp.SessionID {
	t.Helper()
	var child acp.SessionID
	announced := false
	var parentText strings.Builder
	for i, f := range frames {
		switch {
		case f.session == parent && f.u["sessionUpdate"] == "subagent_update":
			if child == "" {
				child = acp.SessionID(f.u["sessionId"].(string))
				announced = true
				if f.u["title"] != "Inspect project" || f.u["description"] != "general-purpose" || f.u["capabilities"] == nil {
					t.Errorf("announcement %v, want the call's description as title, the agent type, cancel", f.u)
				}
			}
		case f.session == parent && f.u["sessionUpdate"] == "agent_message_chunk":
			c, _ := f.u["content"].(map[string]any)
			s, _ := c["text"].(string)
			parentText.WriteString(s)
		case f.session != parent && !announced:
			t.Fatalf("frame %d of %s before any announcement: %+v", i, f.session, f)
		case f.session != parent && f.session != child:
			t.Errorf("frame %d of an unknown session %s", i, f.session)
		}
	}
	if child == "" {
		t.Fatal("no child session was announced")
	}
	if s := parentText.String(); strings.Contains(s, "Child:") || strings.Contains(s, "CHILD_REPORT") {
		t.Errorf("the sub-agent's text is in the parent's: %q", s)
	}
	return child
}

// TestRealCLISubagentChildSessions runs the real CLI's Agent tool in both
// ways for an editor that takes child sessions: the sub-agent is a session
// of its own, announced on the parent before anything of it, with its
// prompt, text, tool call and permission request, and it ends idle.
func TestRealCLISubagentChildSessions(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.scenario, func(t *testing.T) {
			e := newChildEditor(t)
			s := realCLI(t, tt.scenario, e)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Ask a helper what is in the project."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			frames := e.all()
			parent := s.ID()
			child := checkChildOrder(t, frames, parent)
			if got, want := strings.Join(states(frames, parent, child), " "), "running requires_action running idle/end_turn"; got != want {
				t.Errorf("child states %q, want %q", got, want)
			}
			var childText, prompted string
			var perms []acp.RequestPermissionRequest
			bash := map[string]any{}
			for _, f := range frames {
				if f.perm != nil {
					perms = append(perms, *f.perm)
					continue
				}
				id, _ := f.u["toolCallId"].(string)
				if f.session == parent && id == string(tt.child) {
					t.Errorf("the sub-agent's tool call is on the parent: %v", f.u)
				}
				if f.session != child {
					continue
				}
				c, _ := f.u["content"].(map[string]any)
				text, _ := c["text"].(string)
				switch f.u["sessionUpdate"] {
				case "agent_message_chunk":
					childText += text
				case "user_message_chunk":
					prompted += text
				case "tool_call", "tool_call_update":
					if id == string(tt.child) {
						for k, v := range f.u {
							bash[k] = v
						}
					}
				}
			}
			if !strings.Contains(prompted, "CHILD_TASK") {
				t.Errorf("the child's prompt = %q", prompted)
			}
			if !strings.Contains(childText, "Child: listing files.") || !strings.Contains(childText, "CHILD_REPORT") {
				t.Errorf("the child's text = %q", childText)
			}
			if bash["status"] != "completed" {
				t.Errorf("the child's Bash call = %v, want completed in the child session", bash)
			}
			if len(perms) != 1 || perms[0].SessionID != child || perms[0].ToolCall.ToolCallID != tt.child {
				t.Errorf("permission requests = %+v, want one of %s for %s", perms, child, tt.child)
			}
			var agent map[string]any
			for _, f := range frames {
				if f.session == parent && f.u["toolCallId"] == string(tt.agent) {
					agent = f.u
				}
			}
			if agent["status"] != "completed" || callText(agent) != "CHILD_REPORT: the project holds README.md." {
				t.Errorf("the Agent call ended %v, want completed with the report", agent)
			}
		})
	}
}

// TestRealCLISubagentCancelChild cancels the child session while its
// permission request waits: Claude Code's stop_task stops the sub-agent
// alone, the child ends cancelled, and the parent's turn goes on to its
// own end.
func TestRealCLISubagentCancelChild(t *testing.T) {
	for _, scenario := range []string{"subagent_sync", "subagent_background"} {
		t.Run(scenario, func(t *testing.T) {
			e := newChildEditor(t)
			var s acp.Session
			withdrawn := make(chan bool, 1)
			e.ask = func(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				if !s.(acp.ChildCanceller).CancelChild(r.SessionID) {
					t.Errorf("CancelChild(%s) = false for a running child", r.SessionID)
				}
				select {
				case <-ctx.Done():
					withdrawn <- true
				case <-time.After(30 * time.Second):
					withdrawn <- false
				}
				return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}
			}
			s = realCLI(t, scenario, e)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Ask a helper what is in the project."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v: cancelling a child must not cancel the parent", stop, err)
			}
			if !<-withdrawn {
				t.Error("the child's permission request was not withdrawn after its cancel")
			}
			frames := e.all()
			child := checkChildOrder(t, frames, s.ID())
			st := states(frames, s.ID(), child)
			if len(st) == 0 || st[len(st)-1] != "idle/cancelled" {
				t.Errorf("child states %q, want the last idle/cancelled", st)
			}
			if s.(acp.ChildCanceller).CancelChild(child) {
				t.Error("CancelChild of an ended child = true")
			}
		})
	}
}
