package bridge

import (
	"context"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Child sessions (acp.ChildClient): the adapter owns them; the bridge only
// writes their updates and questions under their ids, in one stream with
// their parent's, and routes session/cancel of a child to the session that
// registered it.

var _ acp.ChildClient = (*sessionClient)(nil)

// Child returns the client of the child session id and registers id on
// the connection as a child of this session (see acp.ChildClient).
func (sc *sessionClient) Child(id acp.SessionID) acp.Client {
	parent := sc.sessionID()
	sc.c.mu.Lock()
	if sc.c.children == nil {
		sc.c.children = make(map[acp.SessionID]acp.SessionID)
	}
	sc.c.children[id] = parent
	sc.c.mu.Unlock()
	return &childClient{sessionClient: sc, id: id}
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
// owns it; it reports whether id is a child of an open session. It runs in
// the read loop: ChildCanceller must not block.
func (c *connection) cancelChild(id acp.SessionID) bool {
	s := c.parentOf(id)
	if s == nil {
		return false
	}
	cc, ok := s.impl.(acp.ChildCanceller)
	if !ok || !cc.CancelChild(id) {
		c.log.Debug().Str("session", string(s.id)).Str("child", string(id)).Msg("session/cancel for a child that is not running ignored")
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
