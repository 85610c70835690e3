package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The CLI's AskUserQuestion tool is how the model asks the user clarifying
// questions (1 to 4, each with 2 to 4 options, some multi-select). The CLI
// asks the host for permission to run it (can_use_tool); the host answers
// allow with the user's choices added to the tool's input as "answers", a
// map from question text to the chosen label (several labels of a
// multi-select joined by ", "), and the tool then returns them to the model
// as its result. This is what the SDKs' canUseTool callbacks do, and the
// real CLI's tool_result reads "User has answered your questions: ...".
//
// Editors that advertise form elicitation get one elicitation/create form
// with a field per question. Others get one session/request_permission per
// question, its options as the choices; a permission question picks one
// option, so a multi-select question is answered with one choice there.

// Messages the model gets when the user does not answer.
const (
	declineQuestions = "The user declined to answer the questions. Do not ask again; " +
		"continue with your best judgement or ask in plain text."
	dismissQuestions = "The user dismissed the questions without answering."
)

// optDecline is the permission option that declines to answer.
const optDecline = "decline"

// question is one AskUserQuestion question.
type question struct {
	text    string
	header  string
	multi   bool
	options []questionOption
}

type questionOption struct {
	label, description string
}

func parseQuestions(input gjson.Result) []question {
	var qs []question
	for _, q := range input.Get("questions").Array() {
		qq := question{
			text:   q.Get("question").String(),
			header: q.Get("header").String(),
			multi:  q.Get("multiSelect").Bool(),
		}
		for _, o := range q.Get("options").Array() {
			qq.options = append(qq.options, questionOption{
				label:       o.Get("label").String(),
				description: o.Get("description").String(),
			})
		}
		if qq.text != "" {
			qs = append(qs, qq)
		}
	}
	return qs
}

// questionInfo shows an AskUserQuestion call: the question as the title,
// and every question with its options as the content.
func questionInfo(input gjson.Result) toolInfo {
	qs := parseQuestions(input)
	info := toolInfo{kind: acp.ToolKindOther, title: "Question"}
	switch len(qs) {
	case 0:
		return info
	case 1:
		info.title = qs[0].text
	default:
		info.title = fmt.Sprintf("%d questions", len(qs))
	}
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("**" + q.text + "**")
		if q.multi {
			b.WriteString(" (choose any)")
		}
		b.WriteString("\n")
		for _, o := range q.options {
			b.WriteString("- " + o.label)
			if o.description != "" {
				b.WriteString(": " + o.description)
			}
			b.WriteString("\n")
		}
	}
	info.content = textContent(strings.TrimRight(b.String(), "\n"))
	return info
}

// questionField is the form field name of the i-th question.
func questionField(i int) string { return "q" + strconv.Itoa(i+1) }

// questionForm is the elicitation form for the questions: a required field
// per question, a single choice or a multi-select of the options.
func questionForm(qs []question) acp.ElicitationSchema {
	s := acp.ElicitationSchema{Type: "object", Properties: map[string]acp.ElicitationProperty{}}
	for i, q := range qs {
		var choices []acp.EnumOption
		for _, o := range q.options {
			choices = append(choices, acp.EnumOption{Const: o.label, Title: o.label, Description: o.description})
		}
		p := acp.ElicitationProperty{Type: "string", Title: orDefault(q.header, q.text), Description: q.text, OneOf: choices}
		if q.multi {
			p = acp.ElicitationProperty{Type: "array", Title: p.Title, Description: q.text,
				Items: &acp.TitledMultiSelectItems{AnyOf: choices}, MinItems: acp.Ptr(uint64(1))}
		}
		if len(choices) == 0 {
			p = acp.ElicitationProperty{Type: "string", Title: p.Title, Description: q.text}
		}
		field := questionField(i)
		s.Properties[field] = p
		s.Required = append(s.Required, field)
	}
	return s
}

// questionMessage is the form's message: the question, or all of them.
func questionMessage(qs []question) string {
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.text
	}
	return strings.Join(texts, "\n")
}

// formAnswers reads the form's content back into the CLI's answers map.
// It reports false when a question has no answer.
func formAnswers(qs []question, content map[string]any) (map[string]string, bool) {
	answers := map[string]string{}
	for i, q := range qs {
		var labels []string
		switch v := content[questionField(i)].(type) {
		case string:
			labels = []string{v}
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					labels = append(labels, s)
				}
			}
		case []string:
			labels = v
		}
		if len(labels) == 0 || labels[0] == "" {
			return nil, false
		}
		answers[q.text] = strings.Join(labels, ", ")
	}
	return answers, true
}

// answerQuestions is the allow answer that hands the answers to the tool.
func answerQuestions(input []byte, answers map[string]string) allowAnswer {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		in = map[string]json.RawMessage{}
	}
	in["answers"] = mustJSON(answers)
	return allowAnswer{Behavior: "allow", UpdatedInput: mustJSON(in)}
}

// questions answers the CLI's request to run AskUserQuestion with the
// user's answers. Questions always go to the user, whatever the mode: a
// question allowed without answers would leave the model guessing.
func (t *turn) questions(req canUseTool) {
	t.s.tr.ensureAnnounced(req.toolUseID, req.tool, req.input)
	qs := parseQuestions(gjson.ParseBytes(req.input))
	var answer any
	switch {
	case len(qs) == 0:
		answer = denyAnswer{Behavior: "deny", Message: "AskUserQuestion needs at least one question."}
	case formElicitation(t.s.client.Capabilities()):
		answer = t.elicit(req, qs)
	default:
		answer = t.askEach(req, qs)
	}
	if answer == nil || !t.r.c.answered(req.reqID) {
		return // withdrawn, or the turn was cancelled
	}
	t.answerErr(t.r.c.respond(req.reqID, answer))
	if _, allowed := answer.(allowAnswer); allowed {
		t.s.update(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(req.toolUseID),
			Status:     acp.Ptr(acp.ToolCallStatusInProgress),
		}})
	}
}

func formElicitation(c acp.ClientCapabilities) bool {
	return c.Elicitation != nil && c.Elicitation.Form != nil
}

// editorQuestion runs one question to the editor the way ask does: it ends
// when the prompt is cancelled or the CLI withdraws its request, and the
// reader may run past the queue's bounds meanwhile. moot reports either.
func (t *turn) editorQuestion(req canUseTool, q func(ctx context.Context)) (moot bool) {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	defer context.AfterFunc(req.abort, cancel)()
	defer t.r.c.hold()()
	q(ctx)
	switch {
	case req.abort.Err() != nil:
		return true
	case t.ctx.Err() != nil:
		t.cancel()
		return true
	}
	return false
}

// elicit puts the questions to the editor as one form.
func (t *turn) elicit(req canUseTool, qs []question) any {
	var resp acp.CreateElicitationResponse
	var err error
	if t.editorQuestion(req, func(ctx context.Context) {
		resp, err = t.s.client.CreateElicitation(ctx, acp.CreateElicitationRequest{
			SessionID:       t.s.id,
			ToolCallID:      acp.ToolCallID(req.toolUseID),
			Mode:            acp.ElicitationModeForm,
			Message:         questionMessage(qs),
			RequestedSchema: questionForm(qs),
		})
	}) {
		return nil
	}
	if err != nil {
		if errors.Is(err, acp.ErrMethodNotFound) {
			return t.askEach(req, qs)
		}
		t.s.log.Warn().Err(err).Msg("asking the editor the model's questions")
		return denyAnswer{Behavior: "deny", Message: "Asking the user failed: " + err.Error()}
	}
	switch resp.Action {
	case acp.ElicitationAccept:
		if answers, ok := formAnswers(qs, resp.Content); ok {
			return answerQuestions(req.input, answers)
		}
		return denyAnswer{Behavior: "deny", Message: dismissQuestions}
	case acp.ElicitationDecline:
		return denyAnswer{Behavior: "deny", Message: declineQuestions}
	}
	return denyAnswer{Behavior: "deny", Message: dismissQuestions}
}

// askEach puts the questions to the editor one permission question at a
// time; declining one declines them all.
func (t *turn) askEach(req canUseTool, qs []question) any {
	answers := map[string]string{}
	for i, q := range qs {
		var resp acp.RequestPermissionResponse
		var err error
		if t.editorQuestion(req, func(ctx context.Context) {
			resp, err = t.s.client.RequestPermission(ctx, acp.RequestPermissionRequest{
				SessionID: t.s.id,
				ToolCall:  questionToolCall(req.toolUseID, q, i, len(qs)),
				Options:   questionOptions(q),
			})
		}) {
			return nil
		}
		switch {
		case err != nil:
			t.s.log.Warn().Err(err).Msg("asking the editor the model's question")
			return denyAnswer{Behavior: "deny", Message: "Asking the user failed: " + err.Error()}
		case resp.Outcome.Selected == nil:
			// The editor withdrew the question: end the turn, as for
			// any permission question.
			t.cancelled, t.stopped = true, true
			return denyAnswer{Behavior: "deny", Message: dismissQuestions, Interrupt: true}
		}
		id := string(resp.Outcome.Selected.OptionID)
		n, err := strconv.Atoi(strings.TrimPrefix(id, "answer_"))
		if id == optDecline || err != nil || n < 0 || n >= len(q.options) {
			return denyAnswer{Behavior: "deny", Message: declineQuestions}
		}
		answers[q.text] = q.options[n].label
	}
	return answerQuestions(req.input, answers)
}

// questionToolCall is the tool call a permission-style question shows: the
// question and its options (always set, as it replaces the last one's).
func questionToolCall(id string, q question, i, n int) acp.ToolCallUpdate {
	title := q.text
	if n > 1 {
		title = fmt.Sprintf("(%d/%d) %s", i+1, n, q.text)
	}
	tc := acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(id), Title: acp.Ptr(title), Kind: acp.Ptr(acp.ToolKindOther)}
	var b strings.Builder
	for _, o := range q.options {
		b.WriteString("- " + o.label)
		if o.description != "" {
			b.WriteString(": " + o.description)
		}
		b.WriteString("\n")
	}
	if b.Len() > 0 {
		tc.Content = textContent(strings.TrimRight(b.String(), "\n"))
	}
	return tc
}

// questionOptions are a question's options as permission options, plus
// one to decline.
func questionOptions(q question) []acp.PermissionOption {
	opts := make([]acp.PermissionOption, 0, len(q.options)+1)
	for i, o := range q.options {
		opts = append(opts, acp.PermissionOption{
			OptionID: acp.PermissionOptionID("answer_" + strconv.Itoa(i)),
			Name:     o.label,
			Kind:     acp.PermissionOptionKindAllowOnce,
		})
	}
	return append(opts, acp.PermissionOption{OptionID: optDecline, Name: "Decline to answer",
		Kind: acp.PermissionOptionKindRejectOnce})
}
