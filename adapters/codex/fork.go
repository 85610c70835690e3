package codex

import (
	"context"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ForkSession forks a stored thread (thread/fork) and opens a session on
// the fork: Codex copies the thread's history into a new thread with an id
// of its own, and leaves the original as it was, loaded or not. The fork
// starts in the adapter's mode, as a new session does.
func (a *Adapter) ForkSession(ctx context.Context, req acp.ForkSessionRequest, c acp.Client) (acp.Session, error) {
	srv, err := a.server(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.loginError(srv); err != nil {
		return nil, err
	}
	s := newSession(a, c, req.Cwd, a.opts.Mode)
	s.cfg = threadConfig(req.McpServers, req.AdditionalDirectories)
	p := threadParams{ThreadID: string(req.SessionID), Cwd: req.Cwd, Model: a.opts.Model, Config: s.cfg,
		ExcludeTurns: true}
	p.ApprovalPolicy, p.Sandbox = modePolicy(s.set.mode)
	var res threadResult
	if err := srv.c.Call(ctx, mThreadFork, p, &res); err != nil {
		if notFound(err) {
			return nil, fmt.Errorf("%w: codex thread %s: %s", acp.ErrResourceNotFound, req.SessionID, err.(*rpcError).Message)
		}
		return nil, fmt.Errorf("forking codex thread %s: %w", req.SessionID, err)
	}
	a.opened(ctx, srv, s, &res)
	return s, nil
}
