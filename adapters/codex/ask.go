package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// askUser puts the model's questions (its request_user_input tool) to the
// editor, one session/request_permission each: the question as the title,
// its choices as allow options and "Skip" to answer nothing. A question
// without choices (free text) cannot be asked that way and is answered
// empty. ACP elicitation (a form) is the better fit for clients that offer
// it; acp.Client has no elicitation call yet.
func (t *turn) askUser(ctx context.Context, id json.RawMessage, qs []userQuestion) {
	qctx, cancel := context.WithCancel(ctx)
	t.asking[string(id)] = &question{cancel: cancel}
	go func() {
		answers := map[string]any{}
		for i, q := range qs {
			picked := t.askOne(qctx, fmt.Sprintf("%s-q%d", strings.Trim(string(id), `"`), i), q)
			answers[q.ID] = map[string][]string{"answers": picked}
		}
		t.answers <- answer{id: id, result: map[string]any{"answers": answers}}
	}()
}

// skipOption answers a question with nothing.
const skipOption = "skip"

func (t *turn) askOne(ctx context.Context, callID string, q userQuestion) []string {
	if len(q.Options) == 0 || ctx.Err() != nil {
		return []string{}
	}
	title := q.Question
	if q.Header != "" {
		title = q.Header + ": " + q.Question
	}
	kind := acp.ToolKindOther
	req := acp.RequestPermissionRequest{SessionID: t.s.ID(),
		ToolCall: acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(callID), Title: &title, Kind: &kind}}
	for i, o := range q.Options {
		opt := acp.PermissionOption{OptionID: acp.PermissionOptionID(fmt.Sprint(i)), Name: o.Label, Kind: acp.PermissionOptionKindAllowOnce}
		req.Options = append(req.Options, opt)
	}
	req.Options = append(req.Options, acp.PermissionOption{OptionID: skipOption, Name: "Skip", Kind: acp.PermissionOptionKindRejectOnce})
	resp, err := t.s.client.RequestPermission(ctx, req)
	if err != nil || resp.Outcome.Selected == nil {
		return []string{}
	}
	for i, o := range q.Options {
		if string(resp.Outcome.Selected.OptionID) == fmt.Sprint(i) {
			return []string{o.Label}
		}
	}
	return []string{}
}

// Options of a request for more permissions.
const (
	optGrantTurn    = "grantForTurn"
	optGrantSession = "grantForSession"
	optRefuse       = "refuse"
)

// askPermissions puts Codex's request for more access (network, more of
// the file system) to the editor: granted for the turn, for the session,
// or refused (an empty grant, which Codex reports to the model).
func (t *turn) askPermissions(ctx context.Context, id json.RawMessage, ev *event) {
	title := "Grant Codex more access"
	if ev.Reason != "" {
		title += ": " + ev.Reason
	}
	kind := acp.ToolKindOther
	req := acp.RequestPermissionRequest{SessionID: t.s.ID(),
		ToolCall: acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(ev.ItemID), Title: &title, Kind: &kind, RawInput: ev.Permissions},
		Options: []acp.PermissionOption{
			{OptionID: optGrantTurn, Name: "Allow for this turn", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: optGrantSession, Name: "Allow for this session", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: optRefuse, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		}}
	qctx, cancel := context.WithCancel(ctx)
	t.asking[string(id)] = &question{cancel: cancel}
	go func() {
		resp, err := t.s.client.RequestPermission(qctx, req)
		result := map[string]any{"permissions": map[string]any{}, "scope": "turn"}
		if err == nil && qctx.Err() == nil && resp.Outcome.Selected != nil {
			switch resp.Outcome.Selected.OptionID {
			case optGrantTurn:
				result["permissions"] = ev.Permissions
			case optGrantSession:
				result["permissions"], result["scope"] = ev.Permissions, "session"
			}
		}
		t.answers <- answer{id: id, result: result}
	}()
}
