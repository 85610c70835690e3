package claude

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// replayChain sends a conversation to the editor as session/update
// notifications. Assistant entries go through the same translator as a live
// turn (each entry is one complete content block), so tool calls, diffs,
// command output and plans look as they did live; user entries become user
// message chunks, or tool results. Tool calls left without a result (the
// CLI was stopped under them) are marked failed.
//
// The sub-agents the conversation ran (kids, the transcripts stored beside
// the session's; nil for none) are replayed the way the live turn showed
// them: right after the Agent call that ran each, its own conversation, as
// a child session for an editor that takes them (announced with the state
// it ended in), else under the Agent call. A background sub-agent's end
// (the CLI's task notification) completes its Agent call where the
// notification is in the conversation.
func replayChain(ctx context.Context, c acp.Client, id acp.SessionID, cwd string, chain [][]byte, kids *transcripts.Children, log zerolog.Logger) error {
	r := &chainReplay{ctx: ctx, kids: kids, log: log, done: map[string]bool{}}
	r.tr = newTranslator(cwd, log)
	r.tr.emit = func(u acp.SessionUpdate) { r.send(c, id, u) }
	if kids != nil {
		kids.Scan(chain)
		r.tr.kids = replayedChildren(c, id, r.send, taskEnds(kids.Ends()).final)
	}
	for _, line := range chain {
		r.entry(gjson.ParseBytes(line), "", 0)
		if r.err != nil {
			return fmt.Errorf("replaying session %s: %w", id, r.err)
		}
	}
	r.tr.abandon()
	if r.err != nil {
		return fmt.Errorf("replaying session %s: %w", id, r.err)
	}
	return nil
}

// chainReplay is one replay of a stored session.
type chainReplay struct {
	ctx  context.Context
	tr   *translator
	kids *transcripts.Children // nil: no sub-agent transcripts
	log  zerolog.Logger
	err  error           // the first send that failed
	done map[string]bool // sub-agents replayed, by agent id
}

// maxChildDepth bounds how deep sub-agents of sub-agents are replayed.
const maxChildDepth = 8

func (r *chainReplay) send(c acp.Client, id acp.SessionID, u acp.SessionUpdate) {
	if r.err == nil {
		r.err = c.SessionUpdate(r.ctx, acp.SessionNotification{SessionID: id, Update: u})
	}
}

// replayedChildren are the child sessions of a replay to the editor c of
// session id, or nil when the editor does not take them
// (clientCapabilities.subagents). They are settled: each is announced with
// final, the state it ended in, since nothing of it runs any more.
func replayedChildren(c acp.Client, id acp.SessionID, send func(acp.Client, acp.SessionID, acp.SessionUpdate),
	final func(call string) acp.SubagentState) *childSessions {
	cc, ok := c.(acp.ChildClient)
	if !ok || c.Capabilities().Subagents == nil {
		return nil
	}
	clients := map[acp.SessionID]acp.Client{}
	to := func(kid acp.SessionID, u acp.SessionUpdate) {
		if kid == "" {
			send(c, id, u)
			return
		}
		if clients[kid] == nil {
			clients[kid] = cc.Child(kid)
		}
		send(clients[kid], kid, u)
	}
	k := newChildSessions(to, func(acp.SessionID, bool) {})
	k.final = final
	return k
}

// taskEnds is how the sub-agents of a conversation ended, by the Agent
// call that ran each: its task status.
type taskEnds map[string]string

// final is the state the sub-agent of the Agent call ended in: idle, with
// the stop reason its end had live; with none when the conversation does
// not say how it ended (the CLI stopped first).
func (e taskEnds) final(call string) acp.SubagentState {
	return acp.SubagentState{State: acp.SubagentIdle, StopReason: endReason(e[call])}
}

// entry replays one conversation entry: the session's own (parent "") or
// one of the sub-agent that the Agent call parent ran, depth levels down.
func (r *chainReplay) entry(root gjson.Result, parent string, depth int) {
	if parent != "" {
		prev := r.tr.route
		r.tr.route = r.tr.childOf(parent)
		defer func() { r.tr.route = prev }()
	}
	switch root.Get("type").String() {
	case "assistant":
		r.tr.assistantOf(root, parent)
		r.subagents(root, depth)
	case "user":
		if n, ok := transcripts.Notification(root); ok {
			r.tr.system("task_notification", n)
			return
		}
		// A sub-agent's user text is its prompt, shown as the child's
		// at its start, or what the CLI told it: not the user's.
		replayUser(r.tr, root, parent == "")
	}
}

// subagents replays, after an assistant entry, the sub-agents its Agent
// calls ran: their start (task_started, as the live CLI sends it) and
// their conversation. A sub-agent is replayed once, however often its id
// comes up.
func (r *chainReplay) subagents(root gjson.Result, depth int) {
	if r.kids == nil || depth >= maxChildDepth {
		return
	}
	for _, b := range root.Get("message.content").Array() {
		if b.Get("type").String() != "tool_use" || !isAgentTool(b.Get("name").String()) {
			continue
		}
		call := b.Get("id").String()
		kid := r.kids.Of(call)
		if kid == nil || r.done[kid.ID] {
			continue
		}
		r.done[kid.ID] = true
		chain, err := r.kids.Chain(kid)
		if err != nil {
			r.log.Debug().Err(err).Str("agent", kid.ID).Msg("reading a sub-agent's transcript")
			continue
		}
		r.kids.Scan(chain)
		r.tr.system("task_started", kid.Started(call, b.Get("input"), chain))
		for _, line := range chain {
			r.entry(gjson.ParseBytes(line), call, depth+1)
			if r.err != nil {
				return
			}
		}
	}
}

// replayUser shows one user entry: the results of tool uses, and, with
// typed set, what the user typed.
func replayUser(tr *translator, root gjson.Result, typed bool) {
	send := tr.send
	content := root.Get("message.content")
	if content.Type == gjson.String {
		if text, ok := transcripts.TypedText(content.String()); ok && typed {
			send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
		}
		return
	}
	blocks := content.Array()
	results := 0
	for _, b := range blocks {
		if b.Get("type").String() == "tool_result" {
			results++
		}
	}
	for _, b := range blocks {
		switch b.Get("type").String() {
		case "tool_result":
			r := toolResult{id: b.Get("tool_use_id").String(), failed: b.Get("is_error").Bool(), block: b}
			if results == 1 {
				r.structured = root.Get("toolUseResult")
			}
			tr.toolResult(r)
		case "text":
			if text, ok := transcripts.TypedText(b.Get("text").String()); ok && typed {
				send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}})
			}
		default:
			if cb, ok := promptBlock(b); ok && typed {
				send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: cb}})
			}
		}
	}
}
