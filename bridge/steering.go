package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// steers reports whether the adapter's sessions take steering.
func (s *Server) steers() bool { return s.adapterInfo().Steering }

// steerAttempts bounds how often steer goes round when turns begin and end
// under it: each round ends because a turn began or ended meanwhile.
const steerAttempts = 4

// arrivingWait bounds how long steer waits for a session/prompt read
// before it to begin its turn, and arrivingPoll is how often it looks.
const (
	arrivingWait = 2 * time.Second
	arrivingPoll = 5 * time.Millisecond
)

// steer answers _session/steering: the message joins the running turn
// (the session's Steer), or, with none running, becomes a turn of its own
// or is handed back (idleBehavior promptRequired), as the agents that
// define the request do. A turn being cancelled takes no message: steer
// waits for it to end and then treats the session as idle, so the
// message is answered either way.
func (c *connection) steer(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SteeringRequest
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
	if !c.srv.steers() {
		return nil, unsupported(acp.MethodSessionSteering, "this agent cannot be steered")
	}
	s.awaitArriving(ctx)
	for range steerAttempts {
		s.mu.Lock()
		t := s.turn
		s.mu.Unlock()
		if t != nil {
			if t.ctx.Err() == nil {
				err := s.agent.steer(ctx, req)
				if err == nil {
					return acp.SteeringResponse{Outcome: acp.SteeringInjected}, nil
				}
				if !errors.Is(err, acp.ErrNoRunningTurn) {
					return nil, err
				}
			}
			select {
			case <-t.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		if req.IdleBehavior() == acp.IdleBehaviorPromptRequired {
			return acp.SteeringResponse{Outcome: acp.SteeringPromptRequired, Reason: acp.SteeringReasonNoRunningTurn}, nil
		}
		if started, err := c.detachedTurn(ctx, s, req); started || err != nil {
			return acp.SteeringResponse{Outcome: acp.SteeringStartedNewTurn}, err
		}
	}
	return nil, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: turns kept starting and ending while steering", nil)
}

// awaitArriving waits, briefly, for the session/prompt calls read before
// the steering request to begin their turns: the two run in goroutines of
// their own, and a message sent right behind a prompt is meant for that
// prompt's turn, not to start one that makes the prompt fail.
func (s *session) awaitArriving(ctx context.Context) {
	deadline := time.Now().Add(arrivingWait)
	for {
		s.mu.Lock()
		waiting := len(s.arriving) > 0 && s.turn == nil
		s.mu.Unlock()
		if !waiting || time.Now().After(deadline) {
			return
		}
		select {
		case <-time.After(arrivingPoll):
		case <-ctx.Done():
			return
		}
	}
}

// detachedTurn runs the message as a turn no request waits for; its
// updates are the editor's news of it, and session/cancel, a second
// prompt's refusal and shutdown treat it as any turn. started is false
// when a turn began meanwhile (steer then joins that one).
func (c *connection) detachedTurn(ctx context.Context, s *session, req acp.SteeringRequest) (started bool, err error) {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return false, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: connection is closing", nil)
	}
	// The turn outlives this request, which is answered at once; the
	// session's close and the connection's shutdown cancel it and wait
	// for its done.
	tctx, t, err := s.begin(context.WithoutCancel(ctx))
	if err != nil {
		return false, nil
	}
	go func() {
		defer s.end(t)
		res, err := s.agent.prompt(tctx, acp.PromptRequest{SessionID: req.SessionID, Prompt: req.Prompt}, nil, &s.client.log)
		s.client.log.Debug().Err(err).Interface("answer", res).Msg("turn started by a steering message ended")
	}()
	return true, nil
}
