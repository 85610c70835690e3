package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// errCancelledByClient is the cancel cause of a turn ended by session/cancel.
var errCancelledByClient = errors.New("turn cancelled by session/cancel")

// turn is one running session/prompt.
type turn struct {
	ctx    context.Context // the turn's; done once it is cancelled or over
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when Prompt has returned
}

// prompt runs one turn. The session runs at most one turn at a time: a second
// prompt while one runs is rejected with invalid-request rather than queued
// or allowed to cancel the first, so no prompt is ever dropped silently and
// the editor decides what to do (wait, or cancel first).
//
// Every update of the turn goes out before this answer: adapters emit on the
// turn's goroutine and each SessionUpdate returns only once the frame is
// queued on the connection, ahead of the answer. The session's conduit
// runs the turn and makes the answer: "cancelled" after session/cancel,
// whatever the adapter's way of unwinding was.
func (c *connection) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.PromptRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := c.requireAuth(); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	tctx, t, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer s.end(t)
	return s.agent.prompt(tctx, req, params, &s.client.log)
}

// promptKey is the context key of a session/prompt's request id (a
// jsonrpc.ID), set by handle for begin.
type promptKey struct{}

// begin starts a turn, or refuses when one is running. A session/cancel
// read after the prompt, before this, starts the turn cancelled (see
// session.arriving).
func (s *session) begin(ctx context.Context) (context.Context, *turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var early error
	if id, ok := ctx.Value(promptKey{}).(jsonrpc.ID); ok {
		early = s.arriving[id]
		delete(s.arriving, id)
	}
	if s.turn != nil {
		return nil, nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
			"Invalid request: a turn is already running in session "+string(s.id)+
				"; wait for its answer or send session/cancel first", nil)
	}
	tctx, cancel := context.WithCancelCause(ctx)
	t := &turn{ctx: tctx, cancel: cancel, done: make(chan struct{})}
	s.turn = t
	if early != nil {
		cancel(early)
	}
	return tctx, t, nil
}

// arrived forgets the prompt preempt noted, once its handler has ended.
func (c *connection) arrived(id jsonrpc.ID, params json.RawMessage) {
	if s := c.session(sessionIDOf(params)); s != nil {
		s.arrived(id)
	}
}

func (s *session) end(t *turn) {
	t.cancel(context.Canceled)
	s.mu.Lock()
	if s.turn == t {
		s.turn = nil
	}
	s.mu.Unlock()
	close(t.done)
}
