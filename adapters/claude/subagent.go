package claude

import (
	"context"
	"errors"
	"slices"
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
	t.childStarted(id, t.tools[id], root)
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
	t.childEnded(id, root.Get("status").String())
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
	if id := t.childOf(parent); id != "" {
		t.childChunk(id, text, thought)
		return
	}
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

// Child sessions. For an editor that advertised clientCapabilities.subagents
// (unstable) each sub-agent is a session of its own, whose id is the CLI's
// task id (task_started's task_id, the agent_id of its frames):
//
//   - task_started announces it, on the session that ran the Agent call
//     (the parent, or the child whose sub-agent it is), with
//     subagent_update (title: the call's description; description: the
//     agent type; cancel granted; state running), then its prompt as the
//     child's user message, before anything else of the child;
//   - the frames of the sub-agent (parent_tool_use_id naming its Agent
//     call) are updates of the child: its text and thinking as the child's
//     agent text, its tool calls, and its permission questions, with
//     state requires_action while one waits;
//   - task_notification ends it: idle, with stop reason end_turn when it
//     completed, cancelled when it was stopped, none when it failed (the
//     pinned schema has no stop reason for a failure);
//   - a child still running when the parent's turn is cancelled, when the
//     CLI dies or when the session closes is ended then (cancelled; no
//     stop reason after a death, whose cause is not the child's).
//
// The Agent call itself stays the parent's tool call, completed with the
// report; its content no longer carries the sub-agent's running text.
type childSessions struct {
	// to sends an update of the session id ("" for the session's own).
	to func(id acp.SessionID, u acp.SessionUpdate)
	// onRun tells the Session that a child runs (true) or has ended, so
	// that it can stop one (Session.CancelChild).
	onRun func(id acp.SessionID, running bool)
	// final is set when the children are a loaded session's, replayed:
	// they are over, and each is announced with the state it ended in
	// (final of its Agent call), never running nor cancellable.
	final   func(call string) acp.SubagentState
	byCall  map[string]acp.SessionID        // Agent call id -> the child it runs
	running map[acp.SessionID]acp.SessionID // running child -> the session it was announced on
	order   []acp.SessionID                 // running children in start order
}

func newChildSessions(to func(acp.SessionID, acp.SessionUpdate), onRun func(acp.SessionID, bool)) *childSessions {
	return &childSessions{to: to, onRun: onRun, byCall: map[string]acp.SessionID{}, running: map[acp.SessionID]acp.SessionID{}}
}

// childOf returns the child session the Agent call runs, or "".
func (t *translator) childOf(call string) acp.SessionID {
	if t.kids == nil || call == "" {
		return ""
	}
	return t.kids.byCall[call]
}

// sessionOf is the session an update belongs to: a tool call's is the one
// whose agent made it; anything else is of the frame being translated.
func (t *translator) sessionOf(u acp.SessionUpdate) acp.SessionID {
	var call acp.ToolCallID
	switch {
	case u.ToolCall != nil:
		call = u.ToolCall.ToolCallID
	case u.ToolCallUpdate != nil:
		call = u.ToolCallUpdate.ToolCallID
	default:
		return t.route
	}
	if tu := t.tools[string(call)]; tu != nil && tu.parent != "" {
		return t.childOf(tu.parent)
	}
	return t.route
}

// childStarted announces the child an Agent call runs (task_started).
func (t *translator) childStarted(call string, tu *toolUse, root gjson.Result) {
	id := acp.SessionID(root.Get("task_id").String())
	if t.kids == nil || id == "" || t.kids.byCall[call] != "" {
		return
	}
	host := t.childOf(tu.parent)
	k := t.kids
	k.byCall[call] = id
	announce := &acp.SubagentUpdate{
		SessionID:    id,
		Title:        acp.NonEmpty(root.Get("description").String()),
		Description:  acp.NonEmpty(root.Get("subagent_type").String()),
		Capabilities: &acp.SubagentSessionCapabilities{Cancel: &acp.SessionCancelCapabilities{}},
		State:        &acp.SubagentState{State: acp.SubagentRunning},
	}
	if k.final != nil {
		st := k.final(call)
		announce.Capabilities, announce.State = nil, &st
	} else {
		k.running[id] = host
		k.order = append(k.order, id)
	}
	k.to(host, acp.SessionUpdate{SubagentUpdate: announce})
	if p := root.Get("prompt").String(); p != "" {
		k.to(id, acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(p)}})
	}
	if k.final == nil {
		k.onRun(id, true)
	}
}

// childChunk sends a sub-agent's text or thinking as its session's.
func (t *translator) childChunk(id acp.SessionID, text string, thought bool) {
	if text == "" {
		return
	}
	c := &acp.ContentChunk{Content: acp.TextBlock(text)}
	if thought {
		t.kids.to(id, acp.SessionUpdate{AgentThoughtChunk: c})
		return
	}
	t.kids.to(id, acp.SessionUpdate{AgentMessageChunk: c})
}

// childEnded ends the child an Agent call runs (task_notification).
func (t *translator) childEnded(call, status string) {
	t.endChild(t.childOf(call), endReason(status))
}

// endReason is the stop reason of a child whose task ended with status:
// none for a failure, which the pinned schema has no stop reason for.
func endReason(status string) *acp.StopReason {
	switch status {
	case "completed":
		return acp.Ptr(acp.StopReasonEndTurn)
	case "stopped", "killed", "cancelled":
		return acp.Ptr(acp.StopReasonCancelled)
	}
	return nil
}

// endChild sends a running child's final state.
func (t *translator) endChild(id acp.SessionID, stop *acp.StopReason) {
	if t.kids == nil {
		return
	}
	host, ok := t.kids.running[id]
	if !ok {
		return
	}
	k := t.kids
	delete(k.running, id)
	k.order = slices.DeleteFunc(k.order, func(o acp.SessionID) bool { return o == id })
	k.to(host, acp.SessionUpdate{SubagentUpdate: &acp.SubagentUpdate{
		SessionID: id,
		State:     &acp.SubagentState{State: acp.SubagentIdle, StopReason: stop},
	}})
	k.onRun(id, false)
}

// endChildren ends every child still running, the last started first (a
// sub-agent's own sub-agents before it).
func (t *translator) endChildren(stop *acp.StopReason) {
	if t.kids == nil {
		return
	}
	for i := len(t.kids.order) - 1; i >= 0; i-- {
		t.endChild(t.kids.order[i], stop)
	}
}

// runningChildren are the children running now.
func (t *translator) runningChildren() []acp.SessionID {
	if t.kids == nil {
		return nil
	}
	return slices.Clone(t.kids.order)
}

// childAsking is the child session a permission question comes from: the
// sub-agent's (agent_id), or the one whose agent made the tool call.
func (t *translator) childAsking(req canUseTool) acp.SessionID {
	if t.kids == nil {
		return ""
	}
	if id := acp.SessionID(req.agent); id != "" {
		if _, ok := t.kids.running[id]; ok {
			return id
		}
	}
	if tu := t.tools[req.toolUseID]; tu != nil {
		return t.childOf(tu.parent)
	}
	return ""
}

// childState reports a running child's state (requires_action while a
// question of it waits, running again after).
func (t *translator) childState(id acp.SessionID, state string) {
	if host, ok := t.kids.running[id]; ok {
		t.kids.to(host, acp.SessionUpdate{SubagentUpdate: &acp.SubagentUpdate{
			SessionID: id, State: &acp.SubagentState{State: state},
		}})
	}
}

var _ acp.ChildCanceller = (*Session)(nil)

// showChildren makes the session's sub-agents child sessions when the
// editor takes them (clientCapabilities.subagents) and its client can
// write them.
func (s *Session) showChildren(c acp.Client, caps acp.ClientCapabilities) {
	cc, ok := c.(acp.ChildClient)
	if !ok || caps.Subagents == nil || !s.a.dialect.isClaude() {
		return
	}
	s.childMaker, s.children = cc, map[acp.SessionID]acp.Client{}
	s.tr.kids = newChildSessions(s.childUpdate, s.childRuns)
}

// childClient is the editor as the child session id sees it. Callers hold
// turnMu.
func (s *Session) childClient(id acp.SessionID) acp.Client {
	c := s.children[id]
	if c == nil {
		c = s.childMaker.Child(id)
		s.children[id] = c
	}
	return c
}

// childUpdate sends one update of the child session id ("" for the
// session's own).
func (s *Session) childUpdate(id acp.SessionID, u acp.SessionUpdate) {
	if id == "" {
		s.update(u)
		return
	}
	err := s.childClient(id).SessionUpdate(s.updateCtx, acp.SessionNotification{SessionID: id, Update: u})
	if err != nil && !errors.Is(err, context.Canceled) {
		s.log.Debug().Err(err).Str("child", string(id)).Str("update", u.Kind()).Msg("sending a child session's update")
	}
}

// childRuns records that the child id runs or has ended.
func (s *Session) childRuns(id acp.SessionID, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kids == nil {
		s.kids = map[acp.SessionID]bool{}
	}
	if running {
		s.kids[id] = true
	} else {
		delete(s.kids, id)
	}
}

// CancelChild stops one sub-agent: Claude Code's stop_task control request
// (the child's id is its task id) ends its work and leaves the parent's
// running; the CLI then reports it stopped (task_notification), which
// ends the child session as cancelled. It does not block: the request is
// written by a goroutine of the session.
func (s *Session) CancelChild(id acp.SessionID) bool {
	s.mu.Lock()
	r := s.cur
	if !s.kids[id] || s.closed || r == nil {
		s.mu.Unlock()
		return false
	}
	s.wg.Add(1) // before Close's Wait: closed is false under mu
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		<-r.ready
		if r.c == nil {
			return
		}
		if err := r.c.notifyControl("stop_task", map[string]any{"task_id": string(id)}); err != nil {
			s.log.Debug().Err(err).Str("child", string(id)).Msg("sending stop_task")
		}
	}()
	return true
}
