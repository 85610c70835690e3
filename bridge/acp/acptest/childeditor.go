package acptest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ChildEditor is the editor of a sub-agent test: it keeps every update and
// permission request an adapter sends, the parent's and its child
// sessions', in order, each checked against the unstable schema.
type ChildEditor struct {
	Client // the calls a sub-agent scenario does not make
	// Ask answers a permission request; nil selects the allow option given
	// to NewChildEditor.
	Ask func(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse
	// OnUpdate, if set, sees each update as it is sent.
	OnUpdate func(session acp.SessionID, u map[string]any)
	// Restamp records what a child's client is sent under the child's id,
	// whatever id it carries, for an adapter that leaves the child's id to
	// its client. Without it, a child's client sent another session's
	// update or question is an error.
	Restamp bool

	t        testing.TB
	v        *Validator
	children bool
	allow    acp.PermissionOptionID

	mu     sync.Mutex
	frames []ChildFrame // guarded by mu
}

// ChildFrame is one update (U, decoded) or permission request (Perm) as
// sent, with the session it was sent on.
type ChildFrame struct {
	Session acp.SessionID
	U       map[string]any
	Perm    *acp.RequestPermissionRequest
}

var (
	_ acp.Client      = (*ChildEditor)(nil)
	_ acp.ChildClient = (*ChildEditor)(nil)
)

// NewChildEditor returns an editor that advertises child sessions when
// children is set (without it, a Child call is an error) and answers
// permission requests with the option allow.
func NewChildEditor(t testing.TB, children bool, allow acp.PermissionOptionID) *ChildEditor {
	return &ChildEditor{t: t, v: LoadUnstable(t), children: children, allow: allow}
}

// Frames returns what the editor was sent so far.
func (e *ChildEditor) Frames() []ChildFrame {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ChildFrame(nil), e.frames...)
}

func (e *ChildEditor) Capabilities() acp.ClientCapabilities {
	if e.children {
		return acp.ClientCapabilities{Subagents: &acp.SubagentCapabilities{}}
	}
	return acp.ClientCapabilities{}
}

func (e *ChildEditor) Child(id acp.SessionID) acp.Client {
	if !e.children {
		e.t.Errorf("Child(%s) called for an editor without child sessions", id)
	}
	return &childView{e, id}
}

func (e *ChildEditor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	return e.record(n)
}

func (e *ChildEditor) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return e.permission(ctx, r)
}

// childView is the editor as one child session's client sees it.
type childView struct {
	*ChildEditor
	id acp.SessionID
}

func (v *childView) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	switch {
	case v.Restamp:
		n.SessionID = v.id
	case n.SessionID != v.id:
		v.t.Errorf("child %s's client sent an update of %s", v.id, n.SessionID)
	}
	return v.record(n)
}

func (v *childView) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	switch {
	case v.Restamp:
		r.SessionID = v.id
	case r.SessionID != v.id:
		v.t.Errorf("child %s's client asked for %s", v.id, r.SessionID)
	}
	return v.permission(ctx, r)
}

func (e *ChildEditor) record(n acp.SessionNotification) error {
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
	e.frames = append(e.frames, ChildFrame{Session: n.SessionID, U: u})
	on := e.OnUpdate
	e.mu.Unlock()
	if on != nil {
		on(n.SessionID, u)
	}
	return nil
}

func (e *ChildEditor) permission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	raw, _ := json.Marshal(r)
	if err := e.v.Validate("RequestPermissionRequest", raw); err != nil {
		e.t.Errorf("permission request not in the unstable schema: %v\n%s", err, raw)
	}
	e.mu.Lock()
	e.frames = append(e.frames, ChildFrame{Session: r.SessionID, Perm: &r})
	e.mu.Unlock()
	if e.Ask != nil {
		return e.Ask(ctx, r), nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(e.allow)}, nil
}

// SubagentStates are the subagent_update states the parent was sent for
// child, in order, as "state" or "state/stopReason"; one sent on another
// session shows as "(on ID)" before it.
func SubagentStates(frames []ChildFrame, parent, child acp.SessionID) []string {
	var out []string
	for _, f := range frames {
		if f.U["sessionUpdate"] != "subagent_update" || f.U["sessionId"] != string(child) {
			continue
		}
		if f.Session != parent {
			out = append(out, "(on "+string(f.Session)+")")
		}
		st, _ := f.U["state"].(map[string]any)
		s, _ := st["state"].(string)
		if r, ok := st["stopReason"].(string); ok {
			s += "/" + r
		}
		out = append(out, s)
	}
	return out
}
