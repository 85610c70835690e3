package pty

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// tick is how often the turn looks at a screen that has not changed, for the
// quiet and no-match windows, and for a screen to settle.
const tick = 10 * time.Millisecond

// settle is how long the screen must be unchanged before its reply text is
// read: a TUI's frame arrives in several reads, and a half-drawn frame has
// half-drawn chrome that no pattern recognises. An agent that never pauses
// that long is read every maxLag anyway, so text is not held back.
const (
	settle = 8 * time.Millisecond
	maxLag = 40 * time.Millisecond
)

// cancelWithin bounds a cancelled turn: the issue promises `cancelled`
// within 2 s whatever the agent does; the interrupt gets most of that to
// bring the agent back to idle.
const cancelWithin = 1500 * time.Millisecond

// Prompt runs one turn: it waits for the agent's idle screen (answering
// start-up dialogs), types the prompt, streams the reply as it appears, asks
// the editor about the dialogs the profile knows, and ends when the screen
// is idle and quiet again.
func (s *session) Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	if s.failed != nil {
		return "", s.failed
	}
	prompt := promptText(req.Prompt)
	for again := 0; ; again++ {
		stop, err := s.promptOnce(ctx, prompt)
		switch {
		case errors.Is(err, errPromptLost) && again == maxRetype:
			return "", fmt.Errorf("%s dropped the prompt %d times: its screen went back to idle with no trace of it", s.opts.Name, again+1)
		case again == maxRetype:
			return stop, err
		case errors.Is(err, errStartupOverPrompt):
			s.log.Debug().Msg("a start-up dialog came up over the prompt: answering it, then typing the prompt again")
		case errors.Is(err, errPromptLost):
			s.log.Info().Msg("the agent dropped the prompt (its screen is idle again and shows no trace of it): typing it again")
		default:
			return stop, err
		}
		s.started = false
	}
}

// maxRetype is how many times a prompt is typed again after a start-up
// dialog took it away or the agent dropped it.
const maxRetype = 2

// errPromptLost ends a turn whose prompt the agent dropped: its screen
// changed after the prompt was typed, then stayed idle for lostAfter with
// the prompt nowhere on it, and no sign of a turn. Codex did so with a
// prompt that came while it still set up its session on a loaded machine.
// Prompt types it again.
var errPromptLost = errors.New("the agent dropped the prompt")

// lostAfter is how long an idle screen with no trace of the prompt, and no
// sign of a turn, must stay quiet before the prompt counts as dropped. It
// is far longer than any TUI here takes between clearing its input box and
// showing the prompt above it.
const lostAfter = 3 * time.Second

// promptOnce waits for the idle screen the first time, types the prompt
// and runs the turn.
func (s *session) promptOnce(ctx context.Context, prompt string) (acp.StopReason, error) {
	if !s.started {
		stop, err := s.ready(ctx)
		if err != nil || stop != "" {
			return stop, err
		}
		s.started = true
	}
	v := s.scr.view()
	// What is above the cursor: the cursor's row is where the prompt is
	// typed, so it changes.
	base := s.p.content(v.above())
	var reports <-chan report
	if s.sig != nil {
		// What came before this prompt is about turns that have ended.
		s.sig.drain()
		reports = s.sig.reports
	}
	t := &turn{s: s, prompt: prompt, typed: typedText(prompt, v.paste), reports: reports, rawBase: strings.Split(v.above(), "\n"),
		base: base, submitted: v.seq, bells: v.bells, since: s.opts.Now()}
	if tr := s.p.Transcript; tr != nil {
		// Before typing: the agent writes the prompt to it at once.
		t.tail = newTail(tr, tr.glob(s.home(), s.cwd, s.getenv), s.transcript, prompt)
	}
	if err := s.typePrompt(ctx, prompt, v.paste); err != nil {
		// An agent that ended while the prompt was typed: what it showed
		// last says why.
		select {
		case <-s.exited:
			return "", s.exitError(s.scr.view())
		case <-time.After(time.Second):
			return "", err
		}
	}
	stop, err := t.run(ctx)
	if errors.Is(err, errPromptLost) || errors.Is(err, errStartupOverPrompt) {
		return stop, err
	}
	if e := echoLine(prompt); e != "" && !slices.Contains(s.prompts, e) {
		s.prompts = append(s.prompts, e)
	}
	return stop, err
}

// ready waits for the first idle screen, answering the profile's start-up
// dialogs on the way and asking the editor about its permission dialogs.
func (s *session) ready(ctx context.Context) (acp.StopReason, error) {
	deadline := time.NewTimer(time.Duration(s.p.Start))
	defer deadline.Stop()
	// A TUI may drop keys typed while a dialog settles (Claude Code redraws
	// its dialogs ≈150 ms after the first frame and resets the selection),
	// so a start-up dialog still there a while after its answer is answered
	// again.
	var (
		redrawn  time.Time
		wasReady bool // an idle screen was seen: the agent reads its keys
	)
	for {
		v := s.scr.view()
		s.log.Trace().Str("screen", v.text).Uint64("seq", v.seq).Msg("look before the first prompt")
		if err := s.loginError(v.text); err != nil {
			return "", err
		}
		idle := s.p.idle(v.text)
		wasReady = wasReady || idle
		switch {
		case !s.quiet(v):
		case idle:
			// An idle screen may yet give way to a start-up dialog, or
			// be drawn before the rest of the agent's first screen.
			still := s.still(v)
			if still >= time.Duration(s.p.StartQuiet) && (!s.p.Ready.set() || s.p.Ready.MatchString(v.text) || still >= readyWait) {
				s.noteVersion(v.text)
				return "", nil
			}
		default:
			if stop, err := s.answerStartup(ctx, &s.startups, v); stop != "" || err != nil {
				return stop, err
			}
			// Only a screen that was idle and no longer is: keys typed
			// into an agent still loading wait for it, and reach it later
			// in a burst with what comes after them.
			if len(s.p.Redraw) > 0 && wasReady && s.p.startup(v.text) == nil && !(s.p.Busy.set() && s.p.Busy.MatchString(v.text)) &&
				s.still(v) >= redrawAfter && s.opts.Now().Sub(redrawn) >= redrawAfter {
				s.log.Debug().Msg("the screen has matched nothing the profile knows for a while: asking the agent to draw it again")
				redrawn = s.opts.Now()
				if err := s.write(s.p.Redraw.Bytes("")); err != nil {
					return "", err
				}
			}
		}
		select {
		case <-ctx.Done():
			return acp.StopReasonCancelled, nil
		case <-s.exited:
			return "", s.exitError(s.scr.view())
		case <-deadline.C:
			return "", fmt.Errorf("%s did not show its idle screen within %s (profile %q, written against %s%s): the idle pattern does not match its screen (a pattern sees each line without its trailing spaces), or a start-up dialog the profile does not answer holds it; the patterns:%s\nthe screen shows:\n%s",
				s.opts.Name, time.Duration(s.p.Start), s.p.Name, s.p.Version, s.versionNote(v.text), s.p.matchReport(v.text), screenTail(v.text, 12))
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}

// readyWait is how long a quiet idle screen without the profile's ready
// pattern waits before the first prompt is typed all the same.
const readyWait = 5 * time.Second

// redrawAfter is how long a quiet screen before the first prompt may match
// nothing the profile knows before the profile's redraw keys are typed.
const redrawAfter = 3 * time.Second

// retryAnswer is how long a start-up dialog may stay after its answer
// before it is answered again.
const retryAnswer = time.Second

// quiet reports whether the screen has not changed for the profile's quiet
// window.
func (s *session) quiet(v view) bool {
	return s.still(v) >= time.Duration(s.p.Quiet)
}

// still is how long the screen is known to have stayed as v: since it
// changed, and at most since Prompt first looked at this version of it. A
// bridge starved of CPU (a loaded machine) may look only long after a write
// that left a frame half drawn, with the rest of the frame not read yet:
// that screen is not quiet until it has been seen unchanged for the window.
func (s *session) still(v view) time.Duration {
	now := s.opts.Now()
	if v.seq != s.seen.seq || s.seen.at.IsZero() {
		s.seen.seq, s.seen.at = v.seq, now
	}
	return now.Sub(latest(v.last, s.seen.at))
}

// turn is the state of one prompt turn.
type turn struct {
	s         *session
	prompt    string
	base      []string  // the screen's content before the prompt was typed
	submitted uint64    // screen seq when the prompt was typed
	bells     int       // bells before the prompt
	since     time.Time // when the prompt was typed
	busy      bool      // the busy screen was seen
	out       stream
	asked     uint64           // screen seq of the dialog last answered; 0 for none
	answered  time.Time        // when the dialog last answered was
	emitted   time.Time        // when reply text was last looked for
	tools     []acp.ToolCallID // the dialogs' tool calls allowed and not ended
	tail      *tail            // the transcript, when the profile has one
	parts     int              // texts sent from the transcript

	// The agent's own reports (a profile's [signal] section).
	typed   string        // the prompt as the agent received it
	reports <-chan report // nil without a [signal] section
	rawBase []string      // the screen above the cursor before the prompt, chrome and all
	urgent  bool          // the agent reported a permission question
}

func (t *turn) run(ctx context.Context) (acp.StopReason, error) {
	stop, err := t.loop(ctx)
	t.endTools(ctx, stop, err)
	return stop, err
}

func (t *turn) loop(ctx context.Context) (acp.StopReason, error) {
	s := t.s
	for {
		v := s.scr.view()
		s.log.Trace().Str("screen", v.text).Uint64("seq", v.seq).Bool("busy", t.busy).Msg("look")
		stop, done, err := t.look(ctx, v)
		if done {
			return stop, err
		}
		select {
		case <-ctx.Done():
			return t.cancel()
		case <-s.exited:
			v := s.scr.view()
			t.finish(ctx, v)
			return "", s.exitError(v)
		case r := <-t.reports:
			if t.report(r) {
				return t.endOnReport(ctx)
			}
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}

// look classifies one screen and acts on it; done ends the turn.
func (t *turn) look(ctx context.Context, v view) (stop acp.StopReason, done bool, err error) {
	s, p := t.s, t.s.p
	if err := s.loginError(v.text); err != nil {
		// Signed out during the session.
		return "", true, err
	}
	if d := p.startup(v.text); d != nil && !t.busy && len(t.out.sent) == 0 {
		// Nothing of this turn has shown yet: the dialog took the prompt.
		return "", true, fmt.Errorf("%w: start-up dialog %q ('%s' matches line %s; if that is an answered dialog left on the screen, anchor the pattern to what only the open dialog shows); the screen shows:\n%s",
			errStartupOverPrompt, d.Name, patternText(d.Match), joinInts(matchLines(d.Match, v.text)), screenTail(v.text, 12))
	}
	if d := p.dialog(v.text); d != nil {
		if t.asked != 0 {
			// Answered; waiting for it to go. A dialog pattern that also
			// matches what the answered dialog leaves on the screen would
			// hold the turn for ever.
			if s.opts.Now().Sub(t.answered) >= time.Duration(p.Unknown) {
				return "", true, t.heldBy(v, fmt.Sprintf("dialog %q still matches %s after its answer", d.Name, time.Duration(p.Unknown)),
					fmt.Sprintf("its match '%s' may match what the answered dialog leaves on the screen: anchor it to what only the open dialog shows (its last line, with \\z)", patternText(d.Match)))
			}
			return "", false, nil
		}
		if !s.quiet(v) && !(t.urgent && s.still(v) >= settle) {
			return "", false, nil // let the dialog finish drawing
		}
		stop, err := t.ask(ctx, d, v)
		return stop, stop != "" || err != nil, err
	}
	t.asked = 0
	if p.Busy.set() && p.Busy.MatchString(v.text) {
		t.busy = true
	}
	// A frame is drawn top to bottom with the cursor at the drawing point:
	// what is above the cursor is whole, the rest may be half drawn (seen
	// under load: a box border cut short). The whole screen is read once
	// it has been quiet, unless the cursor's row is the agent's prompt.
	switch now := s.opts.Now(); {
	case t.tail != nil:
		if err := t.pollTranscript(ctx); err != nil {
			return "", true, err
		}
	case s.quiet(v) && !p.InputAtCursor:
		if err := t.emit(ctx, v.text); err != nil {
			return "", true, err
		}
	case s.still(v) >= settle:
		if err := t.emit(ctx, v.above()); err != nil {
			return "", true, err
		}
	case now.Sub(t.emitted) >= maxLag:
		// Not settled: the frame may be half drawn, and its last whole
		// row part of what comes below it.
		if err := t.emit(ctx, v.aboveAllBut(1)); err != nil {
			return "", true, err
		}
	}
	// A busy screen is not idle, even if the idle pattern matches too (an
	// input box that stays on the screen while the agent works).
	idle := p.idle(v.text)
	changed := v.seq != t.submitted
	bell := v.bells > t.bells
	// Without a busy screen or a bell, a changed screen is a turn that
	// started once reply text has shown (a short reply may come and go
	// between two looks at the busy line), or after the profile's window
	// for unknown screens (a turn with no reply at all). A screen that only
	// changed (the prompt's echo, an input box cleared) is not enough: a
	// TUI starved of CPU may take seconds to show it is busy.
	waited := s.opts.Now().Sub(t.since)
	started := t.busy || bell || (changed && !p.Busy.set()) ||
		(changed && len(t.out.sent) > 0 && waited >= 4*time.Duration(p.Quiet)+time.Second) ||
		(changed && waited >= time.Duration(p.Unknown))
	if !started && changed && idle && s.still(v) >= lostAfter && t.lost(v.text) {
		return "", true, errPromptLost
	}
	switch {
	case idle && started && t.reports == nil && (bell || s.quiet(v)),
		idle && started && t.reports != nil && s.still(v) >= t.idleFor(v):
		return acp.StopReasonEndTurn, true, t.finish(ctx, v)
	case s.opts.Now().Sub(latest(v.last, t.since)) < time.Duration(p.Unknown):
	case !idle && !(p.Busy.set() && p.Busy.MatchString(v.text)):
		return "", true, fmt.Errorf("the screen of %s matches nothing profile %q knows (written against %s%s) for %s: the TUI may have changed, or the idle pattern does not match its idle screen (a pattern sees each line without its trailing spaces); the patterns:%s\nthe screen shows:\n%s",
			s.opts.Name, p.Name, p.Version, s.versionNote(v.text), time.Duration(p.Unknown), p.matchReport(v.text), screenTail(v.text, 12))
	case p.Busy.set() && p.Busy.MatchString(v.text):
		// Busy on a screen that has not changed for the unknown window:
		// an agent at work redraws (a spinner, a timer), and a busy
		// pattern that matches text left on the screen holds the turn
		// for ever.
		return "", true, t.heldBy(v, fmt.Sprintf("the busy pattern has matched a screen that did not change for %s", time.Duration(p.Unknown)),
			fmt.Sprintf("busy '%s' may match text that stays on the screen after the agent is done: anchor it to what only a working agent shows (a line of its own, or the last line with \\z); an agent that works this long without redrawing needs a longer unknown window", patternText(p.Busy)))
	}
	return "", false, nil
}

// lost reports whether screen text shows no trace of the turn's prompt.
// Only a short one-line prompt is looked for: a TUI may show a long or
// pasted one as a placeholder ("[Pasted text #1]"), or wrap it.
func (t *turn) lost(text string) bool {
	e := echoLine(t.prompt)
	if e == "" || promptLines(t.prompt) > 1 || len(e) > maxLostPrompt {
		return false
	}
	return !strings.Contains(text, e)
}

// maxLostPrompt is the longest prompt, in bytes, looked for on the screen:
// one that fits on a line of any terminal a session is given.
const maxLostPrompt = 60

// heldBy is the error of a turn a pattern holds: what happened, the hint,
// which patterns match, and the screen.
func (t *turn) heldBy(v view, what, hint string) error {
	s, p := t.s, t.s.p
	return fmt.Errorf("profile %q (written against %s%s) holds the turn of %s: %s; %s; the patterns:%s\nthe screen shows:\n%s",
		p.Name, p.Version, s.versionNote(v.text), s.opts.Name, what, hint, p.matchReport(v.text), screenTail(v.text, 12))
}

// screenTail is the last n lines of text, numbered as the patterns count
// them.
func screenTail(text string, n int) string {
	all := strings.Count(text, "\n") + 1
	return numbered(lastLines(text, n), max(all-n, 0)+1)
}

// finish sends the rest of the reply at the end of the turn: from the
// transcript, or the screen's last text.
func (t *turn) finish(ctx context.Context, v view) error {
	t.out.final = true
	if t.tail != nil {
		return t.finishTranscript(ctx, t.final(v))
	}
	return t.emit(ctx, t.final(v))
}

// latest is the later of two times: a screen unchanged since before the
// prompt was typed has not been unknown for long (the agent may not have
// echoed the prompt yet).
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// final is the screen text the turn's last reply text is read from.
func (t *turn) final(v view) string {
	if t.s.p.InputAtCursor {
		return v.above()
	}
	return v.text
}

// emit sends the reply text of screen text that appeared since the last
// look.
func (t *turn) emit(ctx context.Context, text string) error {
	reply := replyLines
	if t.s.p.Echo {
		reply = echoedReply
	}
	lines, anchored := reply(t.s.p.content(text), t.base, t.prompt)
	lines = cutAtEarlier(lines, t.s.prompts, t.prompt)
	more := t.out.next(lines, anchored)
	t.emitted = t.s.opts.Now()
	if more == "" {
		return nil
	}
	return t.s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: t.s.id,
		Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(more)}}})
}

// cancel interrupts the agent and waits, for at most cancelWithin, for its
// idle screen. The turn is cancelled whatever the agent does.
func (t *turn) cancel() (acp.StopReason, error) {
	s := t.s
	// Before the interrupt: an agent may be back at idle before the write
	// returns.
	v := s.scr.view()
	before := v.seq
	s.log.Debug().Bool("busy", t.busy).Str("screen", lastLines(v.text, 12)).Msg("turn cancelled; interrupting the agent")
	if err := s.write(s.p.Interrupt.Bytes("")); err != nil {
		s.log.Debug().Err(err).Msg("interrupting")
	}
	limit := time.NewTimer(cancelWithin)
	defer limit.Stop()
	for {
		v := s.scr.view()
		if v.seq != before && t.backFromInterrupt(v) {
			return acp.StopReasonCancelled, nil
		}
		select {
		case <-limit.C:
			s.log.Warn().Str("profile", s.p.Name).Msg("the agent did not come back to idle after the interrupt")
			return acp.StopReasonCancelled, nil
		case <-s.exited:
			return acp.StopReasonCancelled, nil
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}
