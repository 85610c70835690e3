package bridge

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Child sessions (acp.ChildClient): the adapter owns them; the bridge only
// writes their updates and questions under their ids, in one stream with
// their parent's, and routes session/cancel of a child to the session that
// registered it. An agent that speaks ACP itself announces its children in
// its own frames (subagent_update), which pass unchanged: the bridge notes
// each announced id as the session's child as the frame goes out, so that
// a session/cancel naming it reaches that session's agent, unchanged too.

var _ acp.ChildClient = (*sessionClient)(nil)

// Child returns the client of the child session id and registers id on
// the connection as a child of this session (see acp.ChildClient).
func (sc *sessionClient) Child(id acp.SessionID) acp.Client {
	sc.c.addChild(id, sc.sessionID())
	return &childClient{sessionClient: sc, id: id}
}

// addChild records id as a child of the session parent.
func (c *connection) addChild(id, parent acp.SessionID) {
	if id == "" || parent == "" || id == parent {
		return
	}
	c.mu.Lock()
	if c.children == nil {
		c.children = make(map[acp.SessionID]acp.SessionID)
	}
	c.children[id] = parent
	c.mu.Unlock()
}

// noteChild registers the child a raw session/update announces (a
// subagent_update, on the session or on one of its children) as a child
// of this session. Callers hold sc.mu, and the session is bound: the
// frame is about to be written.
func (sc *sessionClient) noteChild(method string, params json.RawMessage) {
	if id, ok := acp.AnnouncedChild(method, params); ok {
		sc.c.addChild(id, sc.id)
	}
}

// childClient is the editor as a child session sees it: the parent's
// client, with the child's id on its updates and questions. The fs and
// terminal calls are the parent's (the child works in the parent's
// workspace, on the same connection).
type childClient struct {
	*sessionClient
	id acp.SessionID
}

func (cc *childClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	return cc.update(ctx, cc.id, n)
}

func (cc *childClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return cc.requestPermission(ctx, cc.id, req)
}

func (cc *childClient) CreateElicitation(ctx context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
	return cc.createElicitation(ctx, cc.id, req)
}

// parentOf returns the open session that registered the child id, or nil.
func (c *connection) parentOf(id acp.SessionID) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.children[id]
	if !ok {
		return nil
	}
	return c.sessions[p]
}

// cancelChild hands session/cancel of a child session to the session that
// owns it; it reports whether id is a child of an open session. A typed
// session gets it through ChildCanceller; a raw one (its agent speaks ACP
// itself, or it is a session of several agents) gets the notification,
// params unchanged, as RawSession.Notify: the agent that announced the
// child is the one that stops it (conduit.cancelChild). Neither cancels
// the parent's turn or withdraws its questions. It runs in the read loop:
// ChildCanceller and RawSession.Notify of session/cancel must not block.
func (c *connection) cancelChild(ctx context.Context, id acp.SessionID, params json.RawMessage) bool {
	s := c.parentOf(id)
	if s == nil {
		return false
	}
	if err := s.agent.cancelChild(ctx, id, params); err != nil {
		c.log.Debug().Err(err).Str("session", string(s.id)).Str("child", string(id)).Msg("session/cancel of a child")
	}
	return true
}

// forgetChildrenLocked drops the children registered by the session parent,
// which has closed. Callers hold c.mu.
func (c *connection) forgetChildrenLocked(parent acp.SessionID) {
	for id, p := range c.children {
		if p == parent {
			delete(c.children, id)
		}
	}
}
