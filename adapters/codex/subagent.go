package codex

import (
	"context"
	"path"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Sub-agents, the turn's side: what a sub-agent thread's messages become
// (children.go routes them to the session that runs it).
//
// The spawn is a tool call of the thread that made it (title "Agent" and
// the task name, kind think), in progress until the sub-agent's turn
// ends, then completed with its last message (its report), or failed when
// its turn failed or was interrupted. Then:
//
//   - an editor that advertised clientCapabilities.subagents (unstable)
//     gets each sub-agent as a child session whose id is its thread id:
//     the spawning session gets subagent_update announcing it (title: the
//     task name, description: its task path, cancel granted, state
//     running) before anything of it; its text, reasoning, tool calls and
//     approval requests are the child's (state requires_action while one
//     waits); its turn's end is state idle with stop reason end_turn, or
//     cancelled when it was interrupted, or none when it failed;
//   - any other editor gets the sub-agent's work under the spawn call and
//     never as the parent's text: its text is the call's content while it
//     runs, its tool calls and approval requests are the session's with
//     _meta.codex.parentToolCallId naming the spawn call (its reasoning is
//     not shown).
//
// The session's turn ends when its own turn and every sub-agent's have:
// a sub-agent the model did not wait for still finishes within the prompt.
// A cancel interrupts the sub-agents' turns too; those still running when
// the turn ends otherwise (the app-server died, the turn failed) are ended
// then, interrupted unless the app-server is gone.

// Item types of sub-agents.
const (
	itemSubAgent = "subAgentActivity"
	itemCollab   = "collabAgentToolCall"
)

// subagent is one sub-agent thread of the session.
type subagent struct {
	thread string // its thread id: the child session's id
	host   string // the thread that spawned it
	call   string // the spawning tool call (the host's)
	name   string // its task path, or "" (v1)
	turn   string // its running turn; "" while idle
	state  string // the state last announced (child sessions)
	tr     *translator
	// text is its text this turn, shown under the call (no child
	// sessions); lastItem is the item the text last came from. report is
	// its last message, the call's content at its end.
	text     strings.Builder
	lastItem string
	report   string
	client   acp.Client // the child session's client; nil without child sessions
}

// ending is a turn result held until the sub-agents are idle.
type ending struct {
	stop acp.StopReason
	err  error
}

// childMaker returns the editor's child sessions when it takes them.
func (s *Session) childMaker() acp.ChildClient {
	cc, ok := s.client.(acp.ChildClient)
	if !ok || s.client.Capabilities().Subagents == nil {
		return nil
	}
	return cc
}

// sub returns the sub-agent thread's record, or nil.
func (t *turn) sub(thread string) *subagent {
	if thread == "" || thread == t.s.thread {
		return nil
	}
	return t.s.subs[thread]
}

// to sends an update about the thread: the session's own, a child
// session's, or, without child sessions, the session's under the
// sub-agent's spawn call (tool calls only: its other updates have no place
// there).
func (t *turn) to(ctx context.Context, thread string, u acp.SessionUpdate) error {
	sa := t.sub(thread)
	switch {
	case sa == nil:
	case sa.client != nil:
		return sa.client.SessionUpdate(ctx, acp.SessionNotification{SessionID: acp.SessionID(sa.thread), Update: u})
	case u.ToolCall != nil:
		u.ToolCall.Meta = parentMeta(sa.call)
	case u.ToolCallUpdate != nil:
		u.ToolCallUpdate.Meta = parentMeta(sa.call)
	default:
		return nil
	}
	return t.s.update(ctx, u)
}

// parentMeta ties a sub-agent's tool call to the call that spawned it.
func parentMeta(call string) map[string]any {
	return map[string]any{"codex": map[string]any{"parentToolCallId": call}}
}

// agentItem handles a sub-agent item of the thread host (the session's or
// a sub-agent's); it reports whether it was one.
func (t *turn) agentItem(ctx context.Context, host, method string, it *item) (bool, error) {
	if it == nil || (it.Type != itemSubAgent && it.Type != itemCollab) {
		return false, nil
	}
	switch {
	case it.Type == itemSubAgent && it.Kind == "started" && method == nItemStarted:
		name := strings.TrimPrefix(path.Base(it.AgentPath), "/")
		tc := &acp.ToolCall{ToolCallID: acp.ToolCallID(it.ID), Title: strings.TrimSpace("Agent " + name),
			Kind: acp.ToolKindThink, Status: acp.ToolCallStatusInProgress,
			RawInput: map[string]any{"agentPath": it.AgentPath, "agentThreadId": it.AgentThreadID}}
		if err := t.to(ctx, host, acp.SessionUpdate{ToolCall: tc}); err != nil {
			return true, err
		}
		return true, t.spawned(ctx, host, it.ID, it.AgentThreadID, it.AgentPath, "")
	case it.Type == itemSubAgent:
		return true, nil // its end is the thread's own turn/completed
	case method == nItemStarted:
		tc := &acp.ToolCall{ToolCallID: acp.ToolCallID(it.ID), Title: collabTitle(it.Tool), Kind: acp.ToolKindThink,
			Status: acp.ToolCallStatusInProgress, RawInput: map[string]any{"tool": it.Tool, "prompt": it.Prompt, "receiverThreadIds": it.ReceiverThreadIDs}}
		return true, t.to(ctx, host, acp.SessionUpdate{ToolCall: tc})
	}
	if it.Tool == "spawnAgent" && it.Status == "completed" && len(it.ReceiverThreadIDs) > 0 {
		prompt := ""
		if it.Prompt != nil {
			prompt = *it.Prompt
		}
		for _, r := range it.ReceiverThreadIDs {
			if err := t.spawned(ctx, host, it.ID, r, "", prompt); err != nil {
				return true, err
			}
		}
		return true, nil // in progress until the sub-agent ends
	}
	st := acp.ToolCallStatusCompleted
	if it.Status != "completed" {
		st = acp.ToolCallStatusFailed
	}
	u := &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(it.ID), Status: &st, RawOutput: map[string]any{"agentsStates": it.AgentsStates}}
	return true, t.to(ctx, host, acp.SessionUpdate{ToolCallUpdate: u})
}

// collabTitle is the title of a collab tool call.
func collabTitle(tool string) string {
	switch tool {
	case "spawnAgent":
		return "Start a sub-agent"
	case "wait":
		return "Wait for sub-agents"
	case "sendInput", "sendMessage":
		return "Message a sub-agent"
	case "followupTask":
		return "Give a sub-agent a follow-up task"
	case "resumeAgent":
		return "Resume a sub-agent"
	case "interruptAgent":
		return "Interrupt a sub-agent"
	case "closeAgent":
		return "Close a sub-agent"
	case "listAgents":
		return "List sub-agents"
	}
	return "Sub-agent tool: " + tool
}

// spawned records the sub-agent thread the host's call started and, for
// an editor with child sessions, announces it on the host's session
// before anything of it (and its prompt, when Codex gives it, as the
// child's user message).
func (t *turn) spawned(ctx context.Context, host, call, thread, agentPath, prompt string) error {
	if thread == "" || t.s.subs[thread] != nil {
		return nil
	}
	if t.s.subs == nil {
		t.s.subs = map[string]*subagent{}
	}
	sa := &subagent{thread: thread, host: host, call: call, name: agentPath, tr: newTranslator()}
	t.s.subs[thread] = sa
	if t.maker == nil {
		return nil
	}
	title := "Sub-agent"
	if agentPath != "" {
		title = path.Base(agentPath)
	}
	sa.client, sa.state = t.maker.Child(acp.SessionID(thread)), acp.SubagentRunning
	err := t.to(ctx, host, acp.SessionUpdate{SubagentUpdate: &acp.SubagentUpdate{
		SessionID: acp.SessionID(thread), Title: &title, Description: acp.NonEmpty(agentPath),
		Capabilities: &acp.SubagentSessionCapabilities{Cancel: &acp.SessionCancelCapabilities{}},
		State:        &acp.SubagentState{State: acp.SubagentRunning},
	}})
	if err == nil && prompt != "" {
		err = t.to(ctx, thread, acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(prompt)}})
	}
	return err
}

// childState announces a child session's state on its host, when it
// changes.
func (t *turn) childState(ctx context.Context, sa *subagent, state string, stop *acp.StopReason) error {
	if sa.client == nil || (sa.state == state && stop == nil) {
		return nil
	}
	sa.state = state
	return t.to(ctx, sa.host, acp.SessionUpdate{SubagentUpdate: &acp.SubagentUpdate{
		SessionID: acp.SessionID(sa.thread), State: &acp.SubagentState{State: state, StopReason: stop}}})
}

// child handles a message of a sub-agent thread. end reports the end of
// the session's turn, which waited for this sub-agent.
func (t *turn) child(ctx context.Context, m *message, ev *event) (acp.StopReason, bool, error) {
	if len(m.ID) > 0 {
		t.childRequest(ctx, m, ev)
		return "", false, nil
	}
	sa := t.sub(ev.ThreadID)
	if sa == nil {
		return "", false, nil
	}
	var err error
	switch {
	case m.Method == nResolved:
		t.withdraw(m.Params)
	case m.Method == nTurnStarted && ev.Turn != nil:
		sa.turn, sa.report, sa.lastItem = ev.Turn.ID, "", ""
		sa.text.Reset()
		t.s.setKid(sa.thread, sa.turn)
		err = t.childState(ctx, sa, acp.SubagentRunning, nil)
	case m.Method == nTurnCompleted:
		if ev.Turn == nil || ev.Turn.ID != sa.turn {
			break
		}
		if ev.Turn.Status == "interrupted" {
			t.cleanChild(sa.thread)
		}
		if err = t.childEnded(ctx, sa, ev.Turn.Status); err == nil && t.deferred != nil && !t.childrenRunning() {
			d := t.deferred
			if ctx.Err() != nil {
				return acp.StopReasonCancelled, true, nil
			}
			return d.stop, true, d.err
		}
	case sa.turn == "" || (ev.TurnID != "" && ev.TurnID != sa.turn):
		// Before its turn, or an ended turn's stragglers.
	default:
		err = t.childWork(ctx, sa, m.Method, ev)
	}
	if err != nil && ctx.Err() == nil {
		return "", true, err
	}
	return "", false, nil
}

// childWork translates a running sub-agent's text, reasoning and items.
func (t *turn) childWork(ctx context.Context, sa *subagent, method string, ev *event) error {
	switch method {
	case nAgentDelta, nReasoningDelta, nSummaryDelta:
		thought := method != nAgentDelta
		if sa.client != nil {
			for _, u := range chunk(ev.Delta, thought) {
				if err := t.to(ctx, sa.thread, u); err != nil {
					return err
				}
			}
			return nil
		}
		if thought || ev.Delta == "" {
			return nil
		}
		if sa.text.Len() > 0 && ev.ItemID != sa.lastItem {
			sa.text.WriteString("\n\n")
		}
		sa.text.WriteString(ev.Delta)
		sa.lastItem = ev.ItemID
		st := acp.ToolCallStatusInProgress
		return t.to(ctx, sa.host, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(sa.call),
			Status: &st, Content: []acp.ToolCallContent{acp.ToolContentText(sa.text.String())}}})
	case nTokenUsage:
		return nil // the sub-agent's context, not the session's
	}
	if method == nItemCompleted && ev.Item != nil && ev.Item.Type == "agentMessage" {
		sa.report = ev.Item.Text
	}
	if ok, err := t.agentItem(ctx, sa.thread, method, ev.Item); ok {
		return err
	}
	for _, u := range sa.tr.notification(method, ev) {
		if err := t.to(ctx, sa.thread, u); err != nil {
			return err
		}
	}
	return nil
}

// childEnded ends a sub-agent's turn: Codex's status (completed,
// interrupted, failed; "" when the bridge ends it) becomes its stop reason
// and the spawn call's end.
func (t *turn) childEnded(ctx context.Context, sa *subagent, status string) error {
	var stop *acp.StopReason
	call := acp.ToolCallStatusFailed
	switch status {
	case "completed":
		stop, call = acp.Ptr(acp.StopReasonEndTurn), acp.ToolCallStatusCompleted
	case "interrupted", "cancelled":
		stop = acp.Ptr(acp.StopReasonCancelled)
	}
	sa.turn = ""
	t.s.setKid(sa.thread, "")
	if err := t.childState(ctx, sa, acp.SubagentIdle, stop); err != nil {
		return err
	}
	report := sa.report
	if report == "" {
		report = sa.text.String()
	}
	u := &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(sa.call), Status: &call}
	if report != "" {
		u.Content = []acp.ToolCallContent{acp.ToolContentText(report)}
	}
	return t.to(ctx, sa.host, acp.SessionUpdate{ToolCallUpdate: u})
}

// cleanChild ends the commands an interrupted sub-agent turn left running:
// Codex 0.169 keeps them as background terminals of the thread, and one
// asked to clean them while the turn is still being interrupted finds
// none yet. Bounded by the cancel grace.
func (t *turn) cleanChild(thread string) {
	ctx, cancel := context.WithTimeout(context.Background(), t.s.a.opts.CancelGrace)
	defer cancel()
	if err := t.srv.c.Call(ctx, mCleanTerminals, map[string]string{"threadId": thread}, nil); err != nil {
		t.s.a.opts.Logger.Debug().Err(err).Str("child", thread).Msg("ending an interrupted sub-agent's commands")
	}
}

// childrenRunning reports whether a sub-agent's turn runs.
func (t *turn) childrenRunning() bool {
	for _, sa := range t.s.subs {
		if sa.turn != "" {
			return true
		}
	}
	return false
}

// leftChildren ends the sub-agents still running when the session's turn
// has ended: interrupted (unless the app-server is gone, which took them
// with it) and ended cancelled, or with no stop reason after a crash.
func (t *turn) leftChildren(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	var stop string
	if !t.dead {
		stop = "cancelled"
		t.s.interruptChildren(t.srv, t.s.a.opts.CancelGrace)
	}
	for _, sa := range t.s.subs {
		if sa.turn != "" {
			_ = t.childEnded(ctx, sa, stop)
		}
	}
}
