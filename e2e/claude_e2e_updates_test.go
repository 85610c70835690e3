//go:build linux

package e2e

import sdk "github.com/coder/acp-go-sdk"

// Helpers over update lists, as the Claude end-to-end tests read them.

func e2eIsText(u sdk.SessionUpdate) bool    { return u.AgentMessageChunk != nil }
func e2eIsThought(u sdk.SessionUpdate) bool { return u.AgentThoughtChunk != nil }

// e2eToolCall is what an editor knows about one tool call once every update
// has been applied: the tool_call, then each tool_call_update in order.
type e2eToolCall struct {
	id        sdk.ToolCallId
	title     string
	kind      sdk.ToolKind
	statuses  []sdk.ToolCallStatus // every status reported, in order
	content   []sdk.ToolCallContent
	locations []sdk.ToolCallLocation
	rawInput  any
	rawOutput any
}

func (tc *e2eToolCall) status() sdk.ToolCallStatus {
	if len(tc.statuses) == 0 {
		return ""
	}
	return tc.statuses[len(tc.statuses)-1]
}

// e2eToolCalls folds the tool call updates into one state per call, in the
// order the calls were announced.
func e2eToolCalls(us []sdk.SessionUpdate) []*e2eToolCall {
	var order []*e2eToolCall
	byID := map[sdk.ToolCallId]*e2eToolCall{}
	get := func(id sdk.ToolCallId) *e2eToolCall {
		if tc, ok := byID[id]; ok {
			return tc
		}
		tc := &e2eToolCall{id: id}
		byID[id] = tc
		order = append(order, tc)
		return tc
	}
	for _, u := range us {
		switch {
		case u.ToolCall != nil:
			tc := get(u.ToolCall.ToolCallId)
			tc.title, tc.kind = u.ToolCall.Title, u.ToolCall.Kind
			if u.ToolCall.Status != "" {
				tc.statuses = append(tc.statuses, u.ToolCall.Status)
			}
			tc.content, tc.locations = u.ToolCall.Content, u.ToolCall.Locations
			tc.rawInput, tc.rawOutput = u.ToolCall.RawInput, u.ToolCall.RawOutput
		case u.ToolCallUpdate != nil:
			v := u.ToolCallUpdate
			tc := get(v.ToolCallId)
			if v.Title != nil {
				tc.title = *v.Title
			}
			if v.Kind != nil {
				tc.kind = *v.Kind
			}
			if v.Status != nil {
				tc.statuses = append(tc.statuses, *v.Status)
			}
			if v.Content != nil {
				tc.content = v.Content
			}
			if v.Locations != nil {
				tc.locations = v.Locations
			}
			if v.RawInput != nil {
				tc.rawInput = v.RawInput
			}
			if v.RawOutput != nil {
				tc.rawOutput = v.RawOutput
			}
		}
	}
	return order
}

// e2eFindTool returns the tool call with id.
func e2eFindTool(us []sdk.SessionUpdate, id string) *e2eToolCall {
	for _, tc := range e2eToolCalls(us) {
		if string(tc.id) == id {
			return tc
		}
	}
	return nil
}

// e2eContentText returns the text of a tool call's plain content blocks.
func e2eContentText(cs []sdk.ToolCallContent) []string {
	var out []string
	for _, c := range cs {
		if c.Content != nil && c.Content.Content.Text != nil {
			out = append(out, c.Content.Content.Text.Text)
		}
	}
	return out
}

// e2eDiff is a diff as the editor shows it; noOld marks a new file.
type e2eDiff struct {
	path, old, new string
	noOld          bool
}

// e2eDiffs returns a tool call's diff contents.
func e2eDiffs(cs []sdk.ToolCallContent) []e2eDiff {
	var out []e2eDiff
	for _, c := range cs {
		if c.Diff == nil {
			continue
		}
		d := e2eDiff{path: c.Diff.Path, new: c.Diff.NewText, noOld: c.Diff.OldText == nil}
		if c.Diff.OldText != nil {
			d.old = *c.Diff.OldText
		}
		out = append(out, d)
	}
	return out
}

// e2eModeUpdates lists the current_mode_update mode ids, in order.
func e2eModeUpdates(us []sdk.SessionUpdate) []string {
	var out []string
	for _, u := range us {
		if u.CurrentModeUpdate != nil {
			out = append(out, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	return out
}

// e2eConfigValues lists, for each config_option_update, the current value of
// option id.
func e2eConfigValues(us []sdk.SessionUpdate, id string) []string {
	var out []string
	for _, u := range us {
		if u.ConfigOptionUpdate == nil {
			continue
		}
		out = append(out, e2eConfigValue(u.ConfigOptionUpdate.ConfigOptions, id))
	}
	return out
}

// e2eConfigValue is the current value of the select option id ("" if none).
func e2eConfigValue(opts []sdk.SessionConfigOption, id string) string {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}
