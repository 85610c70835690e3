package codex

import (
	"encoding/json"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Permission option ids: Codex's decision names, so the answer maps back
// without a table.
const (
	optAccept           = "accept"
	optAcceptForSession = "acceptForSession"
	optAmendment        = "acceptWithExecpolicyAmendment"
	optDecline          = "decline"
)

// approval is one approval request of the app-server, as the editor is
// asked it.
type approval struct {
	options   []acp.PermissionOption
	amendment json.RawMessage // the proposed exec-policy amendment, if offered
}

// newApproval builds the options of an approval request from the decisions
// Codex offers (availableDecisions; absent for file changes, which take
// accept, acceptForSession, decline and cancel). Reject is always offered
// and answered "decline": Codex 0.169 lists only accept, the exec-policy
// amendment and cancel for an escalated command, but takes decline anyway,
// marks the command declined, tells the model and goes on with the turn;
// cancel would end the whole turn. Cancel itself is not offered: the editor
// cancels with session/cancel.
func newApproval(method string, ev *event) approval {
	var a approval
	allowOnce := acp.PermissionOption{OptionID: optAccept, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}
	forSession := acp.PermissionOption{OptionID: optAcceptForSession, Name: "Allow for this session", Kind: acp.PermissionOptionKindAllowAlways}
	decline := acp.PermissionOption{OptionID: optDecline, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce}
	if method == rFileApproval || len(ev.AvailableDecisions) == 0 {
		a.options = []acp.PermissionOption{allowOnce, forSession, decline}
		return a
	}
	for _, raw := range ev.AvailableDecisions {
		var name string
		if json.Unmarshal(raw, &name) == nil {
			switch name {
			case optAccept:
				a.options = append(a.options, allowOnce)
			case optAcceptForSession:
				a.options = append(a.options, forSession)
			}
			continue
		}
		var obj map[string]struct {
			Amendment json.RawMessage `json:"execpolicy_amendment"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			if v, ok := obj[optAmendment]; ok {
				a.amendment = v.Amendment
				a.options = append(a.options, acp.PermissionOption{OptionID: optAmendment,
					Name: "Always allow " + amendmentText(v.Amendment), Kind: acp.PermissionOptionKindAllowAlways})
			}
		}
	}
	a.options = append(a.options, decline)
	return a
}

// amendmentText shows an exec-policy amendment (a command prefix, as argv)
// as a command line.
func amendmentText(raw json.RawMessage) string {
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return "commands like this"
	}
	return "`" + strings.Join(argv, " ") + "` commands"
}

// decision is Codex's answer for the editor's: the chosen option, or
// cancel when the request was cancelled (the turn is being cancelled).
func (a approval) decision(resp acp.RequestPermissionResponse, err error) any {
	if err != nil || resp.Outcome.Selected == nil {
		return "cancel"
	}
	switch id := string(resp.Outcome.Selected.OptionID); id {
	case optAccept, optAcceptForSession, optDecline:
		return id
	case optAmendment:
		return map[string]any{optAmendment: map[string]json.RawMessage{"execpolicy_amendment": a.amendment}}
	}
	return optDecline
}

// permissionRequest is the session/request_permission for an approval of
// the tool call it concerns.
func (a approval) request(sid acp.SessionID, method string, ev *event) acp.RequestPermissionRequest {
	tc := acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(ev.ItemID)}
	if method == rCommandApproval && ev.Command != "" {
		title, kind := ev.Command, acp.ToolKindExecute
		tc.Title, tc.Kind = &title, &kind
		tc.RawInput = map[string]any{"command": ev.Command, "cwd": ev.Cwd, "reason": ev.Reason}
	}
	return acp.RequestPermissionRequest{SessionID: sid, ToolCall: tc, Options: a.options}
}
