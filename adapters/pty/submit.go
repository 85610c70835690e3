package pty

import (
	"context"
	"time"
)

// typePrompt types the prompt and its submit keys, with the profile's
// submit delay between them. A turn cancelled during the delay leaves the
// prompt typed but not submitted; the turn's cancel clears it.
//
// A TUI that needs the delay may still take the submit keys as more of the
// paste now and then (Gemini CLI does, right after a turn): when the
// screen is then neither idle, busy nor a dialog for a while, the prompt
// still waits in the input box, and the submit keys are typed again (three
// times at most; an empty input box ignores them). A TUI that is not
// reading its input yet (Gemini CLI restarting after its trust dialog)
// leaves the screen unchanged: it reads the paste and the submit keys in
// one go later and may take them the same way.
func (s *session) typePrompt(ctx context.Context, prompt string, paste bool) error {
	typed := s.typing(prompt, paste)
	d := time.Duration(s.p.SubmitDelay)
	if d <= 0 {
		return s.write(typed)
	}
	submit := s.p.Submit.Bytes("")
	if err := s.write(typed[:len(typed)-len(submit)]); err != nil {
		return err
	}
	for try := 0; ; try++ {
		if !s.pause(ctx, d) {
			return nil // the turn sees the cancel and interrupts
		}
		before := s.scr.view().seq
		if err := s.write(submit); err != nil {
			return err
		}
		if try == 3 || s.submitted(ctx, 4*d, before) {
			return nil
		}
		s.log.Debug().Msg("the prompt is still in the input box: submitting again")
	}
}

// pause waits d; false if ctx ended first.
func (s *session) pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// submitted waits, for at most d, for a screen that shows the prompt was
// taken: busy, or a dialog (a start-up one included), or idle again once the screen has been quiet
// for the profile's window (a TUI still starting up redraws its input box
// empty, then with the text typed into it). An idle screen counts only if
// it has been drawn since the submit keys (seq before): one that never
// changed is a TUI that has not read them yet.
func (s *session) submitted(ctx context.Context, d time.Duration, before uint64) bool {
	limit := time.NewTimer(d)
	defer limit.Stop()
	for {
		v := s.scr.view()
		// A start-up dialog drawn over the prompt: typing the submit keys
		// again would answer it unasked.
		if (s.p.Busy.set() && s.p.Busy.MatchString(v.text)) || s.p.dialog(v.text) != nil || s.p.startup(v.text) != nil ||
			(v.seq != before && s.p.idle(v.text) && s.quiet(v)) {
			return true
		}
		select {
		case <-ctx.Done():
			return true
		case <-s.exited:
			return true
		case <-limit.C:
			return false
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}
