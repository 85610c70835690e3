package claude

import (
	"context"
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Permission option ids offered to the editor.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// denyMessage is what the model is told when the user says no. The turn goes
// on: the model sees a failed tool result and may try something else.
const denyMessage = "The user refused permission to run this tool."

// allowAnswer and denyAnswer are the CLI's PermissionResult shapes.
type allowAnswer struct {
	Behavior           string          `json:"behavior"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	UpdatedPermissions json.RawMessage `json:"updatedPermissions,omitempty"`
}

type denyAnswer struct {
	Behavior  string `json:"behavior"`
	Message   string `json:"message"`
	Interrupt bool   `json:"interrupt,omitempty"`
}

// canUseTool is one can_use_tool request from the CLI.
type canUseTool struct {
	reqID       string
	abort       context.Context
	tool        string
	input       []byte // compact JSON object
	toolUseID   string
	agent       string // agent_id: the sub-agent asking; "" for the main thread
	suggestions gjson.Result
}

func parseCanUseTool(ev event) canUseTool {
	req := gjson.GetBytes(ev.line, "request")
	input := []byte("{}")
	if in := req.Get("input"); in.IsObject() {
		input = compact(in.Raw)
	}
	return canUseTool{
		reqID:       ev.reqID,
		abort:       ev.abort,
		tool:        req.Get("tool_name").String(),
		input:       input,
		toolUseID:   orDefault(req.Get("tool_use_id").String(), "permission-"+ev.reqID),
		agent:       req.Get("agent_id").String(),
		suggestions: req.Get("permission_suggestions"),
	}
}

// permissionOptions are the choices offered for a tool. Leaving plan mode is
// a choice of the mode to continue in.
func permissionOptions(tool string) []acp.PermissionOption {
	if tool == "ExitPlanMode" {
		return []acp.PermissionOption{
			{OptionID: "acceptEdits", Name: "Yes, and auto-accept edits", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: "default", Name: "Yes, and manually approve edits", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "plan", Name: "No, keep planning", Kind: acp.PermissionOptionKindRejectOnce},
		}
	}
	return []acp.PermissionOption{
		{OptionID: optAllowOnce, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: optAllowAlways, Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionID: optRejectOnce, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		{OptionID: optRejectAlways, Name: "Always Reject", Kind: acp.PermissionOptionKindRejectAlways},
	}
}

// decide turns the editor's choice into the CLI's answer. remember reports a
// rule to keep for the rest of the session ("always reject").
func decide(req canUseTool, option string) (answer any, rejectAlways bool) {
	allow := allowAnswer{Behavior: "allow", UpdatedInput: req.input}
	if req.tool == "ExitPlanMode" {
		if option == "plan" || !validMode(option) {
			return denyAnswer{Behavior: "deny", Message: "The user wants to keep planning."}, false
		}
		allow.UpdatedPermissions = mustJSON([]map[string]any{
			{"type": "setMode", "mode": option, "destination": "session"},
		})
		return allow, false
	}
	switch option {
	case optAllowOnce:
		return allow, false
	case optAllowAlways:
		allow.UpdatedPermissions = alwaysRules(req)
		return allow, false
	case optRejectAlways:
		return denyAnswer{Behavior: "deny", Message: denyMessage}, true
	}
	return denyAnswer{Behavior: "deny", Message: denyMessage}, false
}

// alwaysRules are the permission updates for "always allow": the CLI's own
// rule suggestions (they say where the rule belongs, usually the project's
// local settings), or else a rule for the tool kept for this session. A
// suggested mode switch is left out: the user allowed a tool, not a mode.
func alwaysRules(req canUseTool) json.RawMessage {
	var keep []json.RawMessage
	for _, sug := range req.suggestions.Array() {
		switch sug.Get("type").String() {
		case "addRules", "replaceRules", "addDirectories":
			keep = append(keep, compact(sug.Raw))
		}
	}
	if len(keep) > 0 {
		return mustJSON(keep)
	}
	return mustJSON([]map[string]any{{
		"type": "addRules", "rules": []map[string]string{{"toolName": req.tool}},
		"behavior": "allow", "destination": "session",
	}})
}

// ruleKey identifies what an "always reject" covers: the tool, and for shell
// commands the command line (rejecting one command must not block all).
func ruleKey(tool string, input []byte) string {
	if tool == "Bash" {
		return tool + "\x00" + gjson.GetBytes(input, "command").String()
	}
	return tool
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with maps of strings
	}
	return b
}
