package auto

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Child sessions (sub-agents) of the agents behind a session, for an
// editor that takes them (clientCapabilities.subagents): they work as
// they do with the agent served alone. An agent served through the typed
// contract gets a client that is an acp.ChildClient when the bridge's is
// (childRelay), so its children are registered with the bridge under the
// editor's session; an agent that speaks ACP itself announces them in its
// frames (subagent_update), which the relay notes. Either way a child's
// frames keep the child's id (only the session's own are re-addressed),
// the child's id is owned by the agent that ran it (load, delete and fork
// naming it go there), and the editor's session/cancel of a child, which
// the bridge hands the session as a notification naming the child, goes
// to the agent's session: unchanged to an agent that speaks ACP, through
// acp.ChildCanceller to a typed one.

// childRelay is the relay of an agent served through the typed contract
// when the bridge's client makes child sessions.
type childRelay struct {
	*relay
	cc acp.ChildClient
}

var _ acp.ChildClient = childRelay{}

// Child returns the bridge's client of the child id, which falls silent
// once the agent's session is replaced, as the relay does.
func (r childRelay) Child(id acp.SessionID) acp.Client {
	r.noteKid(id)
	return &childView{Client: r.cc.Child(id), r: r.relay}
}

// childView is the editor as one child of a typed agent's session sees it.
type childView struct {
	acp.Client
	r *relay
}

func (v *childView) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	if v.r.retired.Load() {
		return nil
	}
	return v.Client.SessionUpdate(ctx, n)
}

func (v *childView) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if v.r.retired.Load() {
		return acp.RequestPermissionResponse{}, errRetired
	}
	return v.Client.RequestPermission(ctx, req)
}

func (v *childView) CreateElicitation(ctx context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	if v.r.retired.Load() {
		return acp.CreateElicitationResponse{}, errRetired
	}
	return v.Client.CreateElicitation(ctx, req)
}

// noteKid records id as a child of the relay's session, owned by its
// agent.
func (r *relay) noteKid(id acp.SessionID) {
	if id == "" {
		return
	}
	r.mu.Lock()
	if r.kids == nil {
		r.kids = map[acp.SessionID]bool{}
	}
	r.kids[id] = true
	r.mu.Unlock()
	if r.own != nil {
		r.own(id)
	}
}

// hasKid reports whether id is a child of the relay's session.
func (r *relay) hasKid(id acp.SessionID) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kids[id]
}

// isKid reports whether the frame params is a child's (its top-level
// sessionId is a child the agent announced).
func (r *relay) isKid(params json.RawMessage) bool {
	r.mu.Lock()
	none := len(r.kids) == 0
	r.mu.Unlock()
	if none {
		return false
	}
	return r.hasKid(sessionIDOf(params))
}

// noteAnnounced notes the child a raw agent's session/update announces.
func (r *relay) noteAnnounced(method string, params json.RawMessage) {
	if id, ok := acp.AnnouncedChild(method, params); ok {
		r.noteKid(id)
	}
}

// cancelChild passes the editor's session/cancel of a child (params name
// it) to the agent's session, params unchanged. It does not block.
func (i rawInner) cancelChild(ctx context.Context, _ acp.SessionID, params json.RawMessage) error {
	return i.rs.Notify(ctx, acp.MethodSessionCancel, params)
}

// cancelChild stops the child id of a typed session that can stop its
// children one by one.
func (i typedInner) cancelChild(_ context.Context, id acp.SessionID, _ json.RawMessage) error {
	if cc, ok := i.s.(acp.ChildCanceller); ok {
		cc.CancelChild(id)
	}
	return nil
}
