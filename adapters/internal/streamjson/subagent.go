package streamjson

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Sub-agents. Claude Code's Agent tool (Task in older versions) runs a
// sub-agent whose frames carry parent_tool_use_id, the id of the Agent call,
// and agent_id. Claude Code 2.1.329 forwards the sub-agent's text only when
// initialize asks for it (forwardSubagentText); it never streams it.
//
// A sub-agent runs in one of two ways:
//
//   - in the foreground (run_in_background false): its report is the Agent
//     call's tool_result, after a task_notification;
//   - in the background (the default): the Agent call answers at once
//     (tool_use_result.status "async_launched"), the parent goes on, and the
//     report comes later as task_notification (summary, summary_is_report),
//     after which the CLI runs a turn of its own with it.
//
// For an editor without the subagents capability the sub-agent's work shows
// under the Agent tool call and nowhere else: its tool calls carry
// _meta.claudeCode.parentToolUseId, its text becomes the Agent call's
// content while it runs (never agent text of the parent), and its report
// becomes that content when it ends, in both ways: a background Agent call
// stays in_progress after its launch and is completed (or failed) by the
// task_notification, so the call is over when the sub-agent is, not when
// it was started.

// agentRun is what the translator knows of the sub-agent an Agent call ran.
type agentRun struct {
	task       string // the CLI's task id, from task_started
	background bool   // launched in the background
	text       string // its text so far, shown while it runs
	lastMsg    string // the message its last text came from
	ended      bool   // its report has been shown
}

// isAgentTool reports whether a tool runs a sub-agent.
func isAgentTool(name string) bool { return name == "Agent" || name == "Task" }

// agent returns the record of the sub-agent run by the Agent call id,
// creating it.
func (t *translator) agent(id string) *agentRun {
	if t.agents == nil {
		t.agents = map[string]*agentRun{}
	}
	a := t.agents[id]
	if a == nil {
		a = &agentRun{}
		t.agents[id] = a
	}
	return a
}

// childText handles a sub-agent's text or thinking (parent is the Agent
// call that runs it). It is never agent text of the parent: the text is
// shown as the Agent call's content until the report replaces it. The
// sub-agent's thinking is not shown there.
func (t *translator) childText(parent, msgID, text string, thought bool) {
	if thought || text == "" {
		return
	}
	a := t.agent(parent)
	if a.ended {
		return
	}
	if a.text != "" && msgID != a.lastMsg {
		a.text += "\n\n"
	}
	a.text += text
	a.lastMsg = msgID
	t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(parent),
		Status:     acp.Ptr(acp.ToolCallStatusInProgress),
		Content:    textContent(a.text),
		Meta:       parentMeta(t.tools[parent].parentOf(), t.tools[parent].nameOf()),
	}})
}

// agentStarted records task_started for an Agent call.
func (t *translator) agentStarted(root gjson.Result) {
	id := root.Get("tool_use_id").String()
	if tu := t.tools[id]; tu == nil || !isAgentTool(tu.name) {
		return
	}
	a := t.agent(id)
	a.task = root.Get("task_id").String()
	a.background = root.Get("is_backgrounded").Bool()
}

// agentResult handles the tool_result of an Agent call; it reports whether
// it did. A launch in the background leaves the call in progress (the
// sub-agent's end completes it); a foreground run's result is its report.
func (t *translator) agentResult(tu *toolUse, r toolResult) bool {
	if !isAgentTool(tu.name) {
		return false
	}
	a := t.agent(r.id)
	if r.structured.Get("status").String() == "async_launched" || r.structured.Get("isAsync").Bool() {
		// The launch's result is notes for the model (an output file it
		// must not read, how to message the agent): not shown.
		a.background = true
		if a.ended {
			return true // the report came first
		}
		t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(r.id),
			Status:     acp.Ptr(acp.ToolCallStatusInProgress),
			Meta:       parentMeta(tu.parent, tu.name),
		}})
		return true
	}
	a.ended = true
	return false // the result is the report: the ordinary path shows it
}

// agentNotified handles task_notification: the end of a background
// sub-agent completes its Agent call with its report. (A foreground one's
// report is the Agent call's result, which follows.)
func (t *translator) agentNotified(root gjson.Result) {
	id := root.Get("tool_use_id").String()
	tu := t.tools[id]
	if tu == nil || !isAgentTool(tu.name) {
		return
	}
	a := t.agent(id)
	if a.ended || !a.background {
		return
	}
	a.ended, tu.finished = true, true
	status := acp.ToolCallStatusCompleted
	if s := root.Get("status").String(); s != "completed" {
		status = acp.ToolCallStatusFailed
	}
	report := root.Get("summary").String()
	if report == "" {
		report = a.text
	}
	t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(id),
		Status:     acp.Ptr(status),
		Content:    textContent(report),
		Meta:       parentMeta(tu.parent, tu.name),
	}})
}

// agentReport is the content of an Agent call's result: the sub-agent's
// report, without the notes for the model the CLI puts around it (the hand-
// back frame, the tools it used, its agent id and usage). The structured
// result holds the report apart; the tool_result text is the fallback.
func agentReport(r toolResult) []acp.ToolCallContent {
	var parts []string
	for _, b := range r.structured.Get("content").Array() {
		text := b.Get("text").String()
		if b.Get("type").String() != "text" || strings.HasPrefix(strings.TrimSpace(text), "<tools-used-before-summary>") {
			continue
		}
		parts = append(parts, text)
	}
	if len(parts) > 0 {
		return textContent(strings.Join(parts, "\n\n"))
	}
	return genericContent(r.block.Get("content"))
}

// parentOf and nameOf read a possibly unknown tool use.
func (tu *toolUse) parentOf() string {
	if tu == nil {
		return ""
	}
	return tu.parent
}

func (tu *toolUse) nameOf() string {
	if tu == nil {
		return ""
	}
	return tu.name
}

// chunkFrom sends text or thinking of the message msgID: the parent's as
// agent text, a sub-agent's (parent set) under its Agent call.
func (t *translator) chunkFrom(msgID, text string, thought bool, parent string) {
	if parent != "" {
		t.childText(parent, msgID, text, thought)
		return
	}
	t.sendChunk(text, thought, parent)
}

// askedWithParent ties a permission question about a sub-agent's tool to
// the Agent call that runs it, as the tool call itself is.
func (t *translator) askedWithParent(tc acp.ToolCallUpdate) acp.ToolCallUpdate {
	tu := t.tools[string(tc.ToolCallID)]
	if p := tu.parentOf(); p != "" {
		tc.Meta = parentMeta(p, tu.name)
	}
	return tc
}
