package bridge

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// forkSession opens a new session with the history of an existing one
// (unstable session/fork), through the adapter's Forker, or, for an agent
// that speaks ACP itself, through Open: the agent's answer and capability
// are its own.
//
// A session with a turn running on this connection is not forked: the
// conversation is half way through a turn (the prompt stored, the answer
// not), which is no state to go on from, so the answer is invalid-request
// and the client forks once the turn has ended or been cancelled.
func (c *connection) forkSession(ctx context.Context, params json.RawMessage) (any, error) {
	fk, ok := c.srv.adapter.(acp.Forker)
	f, fw := c.srv.adapter.(acp.Forwarder)
	if !ok && !fw {
		return nil, unsupported(acp.MethodSessionFork, "this agent cannot fork sessions")
	}
	var req acp.ForkSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := c.requireAuth(); err != nil {
		return nil, err
	}
	if src := c.session(req.SessionID); src != nil && src.running() {
		return nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
			"Invalid request: session "+string(req.SessionID)+" has a turn running; fork it once the turn has ended, or send session/cancel first",
			map[string]any{"sessionId": req.SessionID})
	}
	if !ok {
		return c.openRaw(ctx, f, acp.MethodSessionFork, "", params)
	}
	s, st, err := c.openTyped(func(cl *sessionClient) (acp.Session, error) { return fk.ForkSession(ctx, req, cl) })
	if err != nil {
		return nil, err
	}
	return c.opened(s, acp.ForkSessionResponse{
		SessionID: s.id, Modes: st.Modes, ConfigOptions: st.ConfigOptions,
	}), nil
}
