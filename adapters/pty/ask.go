package pty

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ask puts a dialog to the editor and types the chosen option's keys. What
// the agent wrote before the dialog is sent first, and the dialog's tool
// call is announced before the request, as the other adapters do: an
// editor shows a request for a tool call it knows, below the text that led
// to it.
func (t *turn) ask(ctx context.Context, d *Dialog, v view) (acp.StopReason, error) {
	s := t.s
	opts, keys := d.options(v.text)
	if len(opts) == 0 {
		return "", fmt.Errorf("dialog %q of profile %q shows no options the profile can read; the screen shows:\n%s",
			d.Name, s.p.Name, lastLines(v.text, 12))
	}
	if err := t.textBefore(ctx, d, v); err != nil {
		return "", err
	}
	title := d.title(v.text)
	id := acp.ToolCallID("pty-" + strconv.FormatUint(v.seq, 10))
	status := acp.ToolCallStatusPending
	if err := s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: acp.SessionUpdate{
		ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Status: status}}}); err != nil {
		return "", err
	}
	resp, err := s.c.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: &title, Status: &status},
		Options:   opts,
	})
	if ctx.Err() != nil {
		t.tools = append(t.tools, id) // failed with the turn
		return t.cancel()
	}
	if err != nil {
		return "", fmt.Errorf("asking permission for %q: %w", d.Name, err)
	}
	if resp.Outcome.Selected == nil {
		t.tools = append(t.tools, id)
		return t.cancel()
	}
	k, ok := keys[resp.Outcome.Selected.OptionID]
	if !ok {
		return "", fmt.Errorf("the editor chose %q, not an option of dialog %q", resp.Outcome.Selected.OptionID, d.Name)
	}
	t.asked, t.answered = v.seq, s.opts.Now()
	if err := s.write(k); err != nil {
		return "", err
	}
	// A rejected tool call has failed; an allowed one runs until the turn
	// ends, which is all the screen tells of it.
	next := acp.ToolCallStatusFailed
	if kindOf(opts, resp.Outcome.Selected.OptionID).allows() {
		next = acp.ToolCallStatusInProgress
		t.tools = append(t.tools, id)
	}
	return "", t.toolStatus(ctx, id, next)
}

// textBefore sends the reply text on the screen above the dialog: a TUI
// may draw the text and its dialog in one frame.
func (t *turn) textBefore(ctx context.Context, d *Dialog, v view) error {
	if t.tail != nil {
		return t.pollTranscript(ctx)
	}
	top := d.top(v.text)
	if top <= 0 {
		return nil
	}
	above := strings.TrimSuffix(v.text[:top], "\n")
	if t.s.p.InputAtCursor {
		// The cursor's row is the agent's prompt: not reply text.
		if a := v.above(); len(a) < len(above) {
			above = a
		}
	}
	return t.emit(ctx, above)
}

// top is where the dialog's first line starts in text: the line of its
// match or of its title, whichever comes first.
func (d *Dialog) top(text string) int {
	first := -1
	for _, p := range []Pattern{d.Match, d.Title} {
		if !p.set() {
			continue
		}
		if loc := p.FindStringIndex(text); loc != nil && (first < 0 || loc[0] < first) {
			first = loc[0]
		}
	}
	if first < 0 {
		return -1
	}
	return strings.LastIndexByte(text[:first], '\n') + 1
}

// endTools ends the turn's tool calls still running: completed with the
// turn, failed when it was cancelled or failed. The turn's context may be
// over by then; the updates belong to the turn all the same.
func (t *turn) endTools(ctx context.Context, stop acp.StopReason, err error) {
	status := acp.ToolCallStatusCompleted
	if err != nil || stop != acp.StopReasonEndTurn {
		status = acp.ToolCallStatusFailed
	}
	ctx = context.WithoutCancel(ctx)
	for _, id := range t.tools {
		if err := t.toolStatus(ctx, id, status); err != nil {
			t.s.log.Debug().Err(err).Msg("ending a tool call")
		}
	}
	t.tools = nil
}

func (t *turn) toolStatus(ctx context.Context, id acp.ToolCallID, status acp.ToolCallStatus) error {
	return t.s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: t.s.id, Update: acp.SessionUpdate{
		ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: &status}}})
}

// optionKind is an option's ACP kind.
type optionKind acp.PermissionOptionKind

func kindOf(opts []acp.PermissionOption, id acp.PermissionOptionID) optionKind {
	for _, o := range opts {
		if o.OptionID == id {
			return optionKind(o.Kind)
		}
	}
	return ""
}

func (k optionKind) allows() bool { return strings.HasPrefix(string(k), "allow") }
