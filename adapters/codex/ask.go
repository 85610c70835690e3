package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// askUser puts the model's questions (its request_user_input tool) to the
// editor. An editor that offers form elicitation gets one form, a field per
// question (its choices, or free text); others get one
// session/request_permission per question: the question as the title, its
// choices as allow options and "Skip" to answer nothing, and a free-text
// question, which a permission request cannot ask, is answered empty. When
// Codex withdraws the request (serverRequest/resolved), qctx ends, which
// withdraws the editor's question too.
func (t *turn) askUser(ctx context.Context, id json.RawMessage, ev *event) {
	qctx, cancel := context.WithCancel(ctx)
	t.asking[string(id)] = &question{cancel: cancel}
	qs := ev.Questions
	caps := t.s.client.Capabilities().Elicitation
	form := caps != nil && caps.Form != nil
	go func() {
		var answers map[string]any
		if form {
			answers = t.askForm(qctx, ev.ItemID, qs)
		} else {
			answers = map[string]any{}
			for i, q := range qs {
				picked := t.askOne(qctx, fmt.Sprintf("%s-q%d", strings.Trim(string(id), `"`), i), q)
				answers[q.ID] = map[string][]string{"answers": picked}
			}
		}
		t.answers <- answer{id: id, result: map[string]any{"answers": answers}}
	}()
}

// otherSuffix names the free-text field of a question that takes an
// answer of the user's own besides its choices (isOther).
const otherSuffix = "_other"

// askForm asks every question in one elicitation form and returns Codex's
// answers map; a declined or withdrawn form answers nothing.
func (t *turn) askForm(ctx context.Context, itemID string, qs []userQuestion) map[string]any {
	req := acp.CreateElicitationRequest{SessionID: t.s.ID(), ToolCallID: acp.ToolCallID(itemID),
		Mode: acp.ElicitationModeForm, Message: questionsText(qs), RequestedSchema: questionForm(qs)}
	resp, err := t.s.client.CreateElicitation(ctx, req)
	answers := map[string]any{}
	if err != nil || ctx.Err() != nil || resp.Action != acp.ElicitationAccept {
		return answers
	}
	for _, q := range qs {
		picked := []string{}
		if v, ok := resp.Content[q.ID+otherSuffix].(string); ok && q.IsOther && v != "" {
			picked = append(picked, v)
		} else if v, ok := resp.Content[q.ID].(string); ok && v != "" {
			picked = append(picked, v)
		}
		answers[q.ID] = map[string][]string{"answers": picked}
	}
	return answers
}

// questionForm is the form of the questions: per question a single choice
// of its options (required unless it also takes an answer of the user's
// own, in an extra free-text field), or a free-text field.
func questionForm(qs []userQuestion) acp.ElicitationSchema {
	s := acp.ElicitationSchema{Type: "object", Properties: map[string]acp.ElicitationProperty{}}
	for _, q := range qs {
		title := q.Header
		if title == "" {
			title = q.Question
		}
		p := acp.ElicitationProperty{Type: "string", Title: title, Description: q.Question}
		for _, o := range q.Options {
			p.OneOf = append(p.OneOf, acp.EnumOption{Const: o.Label, Title: o.Label, Description: o.Description})
		}
		s.Properties[q.ID] = p
		if q.IsOther && len(q.Options) > 0 {
			s.Properties[q.ID+otherSuffix] = acp.ElicitationProperty{Type: "string", Title: title + " (other)",
				Description: "An answer of your own instead of the choices above."}
			continue
		}
		s.Required = append(s.Required, q.ID)
	}
	return s
}

func questionsText(qs []userQuestion) string {
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Question
	}
	return strings.Join(texts, "\n")
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
