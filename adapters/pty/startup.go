package pty

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// errStartupOverPrompt ends a turn whose prompt a start-up dialog took
// away: drawn after the idle screen, later than the profile's start_quiet
// (Gemini CLI's folder-trust dialog on a loaded machine). Prompt answers
// the dialog and types the prompt again.
var errStartupOverPrompt = errors.New("a start-up dialog came up over the prompt")

// startup is the first of the profile's start-up dialogs on the screen, or
// nil.
func (p *Profile) startup(text string) *Startup {
	for i := range p.Startup {
		if p.Startup[i].Match.MatchString(text) {
			return &p.Startup[i]
		}
	}
	return nil
}

// startups is what ready has done about the profile's start-up dialogs.
type startups struct {
	answered map[string]time.Time // dialog → when its keys were last typed
	chosen   map[string][]byte    // dialog → the keys of the editor's choice
}

// answerStartup answers the start-up dialogs on a quiet screen: with the
// profile's keys, or with the option the editor chose. A dialog still there
// retryAnswer after its keys gets them again (a TUI may drop keys typed
// while a dialog settles), unless the profile says to answer it once; the
// editor is asked only once.
func (s *session) answerStartup(ctx context.Context, st *startups, v view) (acp.StopReason, error) {
	for _, d := range s.p.Startup {
		if !d.Match.MatchString(v.text) {
			continue
		}
		if at, ok := st.answered[d.Name]; ok && (d.AnswerOnce || s.opts.Now().Sub(at) < retryAnswer) {
			continue
		}
		keys := d.Keys.Bytes("")
		if len(d.Options) > 0 {
			k, ok := st.chosen[d.Name]
			if !ok {
				var stop acp.StopReason
				var err error
				if k, stop, err = s.askStartup(ctx, d, v); stop != "" || err != nil {
					return stop, err
				}
				st.chosen[d.Name] = k
			}
			keys = k
		}
		s.log.Debug().Str("dialog", d.Name).Msg("answering a start-up dialog")
		st.answered[d.Name] = s.opts.Now()
		if err := s.write(keys); err != nil {
			return "", err
		}
	}
	return "", nil
}

// askStartup puts a start-up dialog to the editor and returns the keys of
// its choice. A reject types that option's keys (the agent may exit, as
// Claude Code does when its folder is not trusted) and fails the session:
// it cannot serve prompts the user did not agree to. A reject that goes on
// (Gemini CLI runs untrusted) is typed like any other answer.
func (s *session) askStartup(ctx context.Context, d Startup, v view) ([]byte, acp.StopReason, error) {
	var opts []acp.PermissionOption
	for i, o := range d.Options {
		opts = append(opts, acp.PermissionOption{OptionID: acp.PermissionOptionID(fmt.Sprint(i + 1)), Name: o.Label, Kind: acp.PermissionOptionKind(o.Kind)})
	}
	title := titleOf(d.Title, v.text, d.Name)
	id := acp.ToolCallID("pty-startup-" + strings.ReplaceAll(d.Name, " ", "-"))
	status := acp.ToolCallStatusPending
	// Announced first, as a dialog during a turn is (see ask).
	if err := s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: acp.SessionUpdate{
		ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Status: status}}}); err != nil {
		return nil, "", err
	}
	resp, err := s.c.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: &title, Status: &status},
		Options:   opts,
	})
	done := acp.ToolCallStatusFailed
	defer func() {
		_ = s.c.SessionUpdate(context.WithoutCancel(ctx), acp.SessionNotification{SessionID: s.id, Update: acp.SessionUpdate{
			ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: &done}}})
	}()
	switch {
	case ctx.Err() != nil:
		return nil, acp.StopReasonCancelled, nil
	case err != nil:
		return nil, "", fmt.Errorf("asking the editor about %s's start-up dialog %q: %w", s.opts.Name, d.Name, err)
	case resp.Outcome.Selected == nil:
		return nil, acp.StopReasonCancelled, nil
	}
	var o *Option
	for i := range d.Options {
		if opts[i].OptionID == resp.Outcome.Selected.OptionID {
			o = &d.Options[i]
		}
	}
	if o == nil {
		return nil, "", fmt.Errorf("the editor chose %q, not an option of start-up dialog %q", resp.Outcome.Selected.OptionID, d.Name)
	}
	if strings.HasPrefix(o.Kind, "allow") {
		done = acp.ToolCallStatusCompleted
	}
	if strings.HasPrefix(o.Kind, "reject") && !o.GoesOn {
		if err := s.write(o.Keys.Bytes("")); err != nil {
			s.log.Debug().Err(err).Msg("typing the rejection")
		}
		s.failed = fmt.Errorf("the editor answered %q to %s's start-up dialog %q (%s): the session cannot go on", o.Label, s.opts.Name, d.Name, title)
		return nil, "", s.failed
	}
	return o.Keys.Bytes(""), "", nil
}
