package codex

import (
	"context"
	"fmt"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

const mThreadDelete = "thread/delete"

// DeleteSession deletes a stored thread (thread/delete: its rollout and
// its entry in Codex's thread list). A thread another connection still has
// open is refused: deleting it would pull its history from under a live
// session.
func (a *Adapter) DeleteSession(ctx context.Context, req acp.DeleteSessionRequest) error {
	id := string(req.SessionID)
	a.mu.Lock()
	_, open := a.sessions[id]
	a.mu.Unlock()
	if open {
		return acp.InvalidParams("sessionId", fmt.Sprintf("codex thread %s is open in another connection; close it there first", id))
	}
	srv, err := a.server(ctx)
	if err != nil {
		return err
	}
	if err := srv.c.Call(ctx, mThreadDelete, map[string]string{"threadId": id}, nil); err != nil {
		if notFound(err) {
			return fmt.Errorf("%w: codex thread %s: %s", acp.ErrResourceNotFound, id, err.(*rpcError).Message)
		}
		return fmt.Errorf("deleting codex thread %s: %w", id, err)
	}
	return nil
}

// notFound reports Codex's answer for a thread it has no rollout of.
func notFound(err error) bool {
	re, ok := err.(*rpcError)
	if !ok {
		return false
	}
	msg := strings.ToLower(re.Message)
	return strings.Contains(msg, "no rollout") || strings.Contains(msg, "not found")
}
