package pty

import (
	"context"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// idleFor is how long an idle screen must be quiet to end a turn that has
// a [signal] section: the quiet window once the agent's done line shows
// below the prompt's echo, else the fallback.
func (t *turn) idleFor(v view) time.Duration {
	if t.s.p.Signal.Done.set() && t.doneShown(v) {
		return time.Duration(t.s.p.Quiet)
	}
	return t.s.p.Signal.fallback()
}

// doneShown reports whether the agent's done line shows below the prompt's
// echo. Only below it: a done line of an earlier turn stays in the
// history above, and a frame half redrawn may show one with no echo (Codex
// clears and rewrites its lines after an interrupt).
func (t *turn) doneShown(v view) bool {
	echo := echoLine(t.prompt)
	if echo == "" {
		return false
	}
	cur := strings.Split(v.text, "\n")
	for i := max(tailIndex(cur, t.rawBase), 0); i < len(cur); i++ {
		if !strings.Contains(cur[i], echo) {
			continue
		}
		for _, l := range cur[i+1:] {
			if t.s.p.Signal.Done.MatchString(l) {
				return true
			}
		}
		return false
	}
	return false
}

// backFromInterrupt reports whether an interrupted agent is back at its
// idle screen: the idle pattern, and the done line where the profile has
// one (Codex shows its idle input box while it streams, so idle alone says
// nothing).
func (t *turn) backFromInterrupt(v view) bool {
	if !t.s.p.idle(v.text) {
		return false
	}
	g := t.s.p.Signal
	return !g.set() || !g.Done.set() || t.doneShown(v)
}

// typedText is the prompt as the agent receives it from typing (see
// session.typing).
func typedText(prompt string, paste bool) string {
	if paste {
		return strings.ReplaceAll(prompt, "\x1b[201~", "")
	}
	return strings.Join(strings.Fields(prompt), " ")
}

// report acts on one of the agent's reports during the turn; true means it
// ends the turn.
func (t *turn) report(r report) bool {
	switch t.s.p.Signal.classify(r, t.typed) {
	case eventTurnComplete:
		t.s.log.Debug().Msg("the agent reported the turn complete")
		return true
	case eventPermission:
		t.busy, t.urgent = true, true
	case eventSubmitted:
		t.busy = true
	default:
		t.s.log.Debug().Msg("a report about another turn, or nothing the profile knows")
	}
	return false
}

// endOnReport ends the turn the agent reported complete. Its last frame
// may still be on its way through the PTY (the report comes over another
// channel), and a hook may run before the TUI takes input again (Claude
// Code's Stop hook does: a prompt typed at once is queued), so the screen
// is read once it has not changed for a moment and shows the idle
// pattern, or after four quiet windows at most; then the reply's rest is
// sent.
func (t *turn) endOnReport(ctx context.Context) (acp.StopReason, error) {
	s := t.s
	limit := time.NewTimer(4 * time.Duration(s.p.Quiet))
	defer limit.Stop()
	for {
		v := s.scr.view()
		if s.still(v) >= reportSettle && s.p.idle(v.text) {
			return acp.StopReasonEndTurn, t.finish(ctx, v)
		}
		select {
		case <-limit.C:
			return acp.StopReasonEndTurn, t.finish(ctx, s.scr.view())
		case <-ctx.Done():
			return t.cancel()
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}

// reportSettle is how long the screen must be unchanged after a
// turn-complete report before the reply is read from it.
const reportSettle = 30 * time.Millisecond
