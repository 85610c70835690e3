package claude

import (
	"context"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Steering (_session/steering): a user message written to the CLI while a
// turn runs joins that turn. Claude Code takes a user message with
// priority "now" into the running turn: it aborts the model's reply in
// progress (a result with terminal_reason aborted_streaming, and no idle
// in between) and makes its next model request with the message in it;
// with "later" it waits for the step in progress (a permission question
// the editor is answering) instead of aborting it. Each message carries a
// uuid, which the result that answers it lists in user_message_uuids, so
// the turn ends only once every steered message has been answered: the
// editor sees the reply before the session/prompt answer.
//
// A cancelled turn waits for them too. An interrupt that follows a
// steering message at once may find it already taken out of the queue:
// the CLI aborts the reply in progress (a result), then runs the steering
// message (command_lifecycle "started", a model request) and only then
// reads the interrupt, which aborts that run (a second result, listing
// the message). Ending the turn at the first result would hand the second
// to the next prompt, which would be answered "cancelled" at once.

// Only Claude Code's own dialect takes user messages into a running turn
// and reports which result answers which, so Info declares steering for
// it alone (steerable).

var _ acp.Steerer = (*Session)(nil)

// steerable reports whether the dialect's CLI takes steering.
func (d *Dialect) steerable() bool { return d.claudeFeatures }

// Steer writes req's message into the running turn.
func (s *Session) Steer(_ context.Context, req acp.SteeringRequest) error {
	if !s.a.dialect.steerable() {
		return fmt.Errorf("%w: %s takes no steering", acp.ErrInternal, s.a.dialect.Name)
	}
	return s.steer(req)
}

// steer hands the message to the live turn, or reports that there is none.
func (s *Session) steer(req acp.SteeringRequest) error {
	msg, err := promptFrame(req.Prompt, s.log)
	if err != nil {
		return err
	}
	msg.UUID = newUUID()
	s.steerMu.Lock()
	t := s.live
	if t == nil || t.finished || t.ctx.Err() != nil {
		s.steerMu.Unlock()
		return fmt.Errorf("steering session %s: %w", s.id, acp.ErrNoRunningTurn)
	}
	// Marked before it is written: the CLI may answer it before send
	// returns, and the turn must not end at the result before that.
	t.steered[msg.UUID] = false
	msg.Priority = "now"
	if t.asking.Load() {
		msg.Priority = "later"
	}
	s.steerMu.Unlock()
	if err := t.r.c.send(msg); err != nil {
		s.steerMu.Lock()
		delete(t.steered, msg.UUID)
		s.steerMu.Unlock()
		return fmt.Errorf("steering session %s: %w", s.id, err)
	}
	s.log.Debug().Str("uuid", msg.UUID).Str("priority", msg.Priority).Msg("steering message sent")
	return nil
}

// goLive makes t the turn steering messages join, once its own message
// is written (a steering message must not overtake it).
func (t *turn) goLive() {
	t.s.steerMu.Lock()
	t.steered = map[string]bool{}
	t.s.live = t
	t.s.steerMu.Unlock()
}

// finish ends the turn unless a steering message is still unanswered;
// force ends it whatever (cancelled, or the CLI exited). Once finished,
// steering messages no longer join it.
func (t *turn) finish(force bool) {
	t.s.steerMu.Lock()
	defer t.s.steerMu.Unlock()
	if len(t.steered) > 0 && !force {
		return
	}
	t.over, t.finished = true, true
	if t.s.live == t {
		t.s.live = nil
	}
}

// steerDone forgets the steering messages a result says the CLI is done
// with.
func (t *turn) steerDone(uuids ...string) {
	t.s.steerMu.Lock()
	defer t.s.steerMu.Unlock()
	for _, u := range uuids {
		delete(t.steered, u)
	}
}

// steerLifecycle follows a steering message through the CLI's command
// queue (a command_lifecycle event). A message the CLI started running is
// answered by a result, whatever happens to it next; one cancelled,
// discarded or refused before it started gets none, so it is done now.
// It reports whether the event settled a message that never ran.
func (t *turn) steerLifecycle(line []byte) (settled bool) {
	f := gjson.GetManyBytes(line, "command_uuid", "state")
	u := f[0].String()
	t.s.steerMu.Lock()
	defer t.s.steerMu.Unlock()
	started, ok := t.steered[u]
	if !ok {
		return false
	}
	switch f[1].String() {
	case "started":
		t.steered[u] = true
	case "cancelled", "discarded", "refused":
		if !started {
			delete(t.steered, u)
			return true
		}
	}
	return false
}

// steeredPending reports whether a steering message is unanswered.
func (t *turn) steeredPending() bool {
	t.s.steerMu.Lock()
	defer t.s.steerMu.Unlock()
	return len(t.steered) > 0
}

// resultUUIDs are the user messages a result answers.
func resultUUIDs(line []byte) []string {
	var out []string
	for _, u := range gjson.GetBytes(line, "user_message_uuids").Array() {
		out = append(out, u.String())
	}
	return out
}
