package codex

import (
	"context"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Steering (_session/steering) is Codex's own turn/steer: the app-server
// adds the input to the running turn (the model's next request holds it)
// and the turn goes on until the model has answered it, so its
// turn/completed, and the session/prompt answer, come after the reply.
// turn/steer names the turn it expects (expectedTurnId) and fails when
// that turn is no longer the thread's active one.

const mTurnSteer = "turn/steer"

type turnSteerParams struct {
	ThreadID       string      `json:"threadId"`
	Input          []userInput `json:"input"`
	ExpectedTurnID string      `json:"expectedTurnId"`
}

type turnSteerResult struct {
	TurnID string `json:"turnId"`
}

// Every Codex turn but a review or a compaction takes steering, and those
// refuse it one by one, so Info declares steering.

var _ acp.Steerer = (*Session)(nil)

// Steer sends req's message to the running turn with turn/steer.
func (s *Session) Steer(ctx context.Context, req acp.SteeringRequest) error {
	a := s.a
	s.mu.Lock()
	t := s.live
	s.mu.Unlock()
	if t == nil {
		return fmt.Errorf("steering codex thread %s: %w", s.thread, acp.ErrNoRunningTurn)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.StartTimeout)
	defer cancel()
	var res turnSteerResult
	err := t.srv.c.Call(ctx, mTurnSteer, turnSteerParams{ThreadID: s.thread, Input: promptInput(req.Prompt), ExpectedTurnID: t.id}, &res)
	if err != nil {
		// The turn ended (or is one Codex does not steer, a review or a
		// compaction): the message did not join it, and the bridge
		// handles it as for an idle session once the turn is over.
		return fmt.Errorf("steering codex thread %s: %w: %v", s.thread, acp.ErrNoRunningTurn, err)
	}
	if res.TurnID != "" && res.TurnID != t.id {
		a.opts.Logger.Warn().Str("turn", t.id).Str("steered", res.TurnID).Msg("codex steered another turn than the running one")
	}
	return nil
}
