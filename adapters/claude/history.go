package claude

import (
	"bytes"
	"context"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// HistoryLine is one line of a recorded stream-JSON conversation: a line the
// host wrote to the CLI's stdin, or one the CLI wrote on its stdout.
type HistoryLine struct {
	FromAgent bool
	Line      []byte
}

// ReplayHistory sends a recorded conversation to the editor as
// session/update notifications, as session/load requires: each prompt the
// host wrote becomes user_message_chunk updates, and the CLI's output is
// translated as it was during the live turns. Nothing is asked: permission
// requests and other control traffic are skipped. Sub-agents are child
// sessions for an editor that takes them, as in a stored session's replay:
// each announced with the state it ended in.
func ReplayHistory(ctx context.Context, c acp.Client, id acp.SessionID, cwd string, lines []HistoryLine, log zerolog.Logger) error {
	var sendErr error
	to := func(c acp.Client, id acp.SessionID, u acp.SessionUpdate) {
		if sendErr == nil {
			sendErr = c.SessionUpdate(ctx, acp.SessionNotification{SessionID: id, Update: u})
		}
	}
	send := func(u acp.SessionUpdate) { to(c, id, u) }
	tr := newTranslator(cwd, log)
	tr.emit = send
	tr.kids = replayedChildren(c, id, to, historyEnds(lines).final)
	for _, l := range lines {
		line := bytes.TrimSpace(l.Line)
		if !validJSON(line) {
			continue
		}
		typ := gjson.GetBytes(line, "type").String()
		switch {
		case !l.FromAgent && typ == "user":
			for _, u := range promptUpdates(gjson.GetBytes(line, "message.content")) {
				send(u)
			}
		case l.FromAgent && typ != "control_request" && typ != "control_response" &&
			typ != "control_cancel_request" && typ != "keep_alive":
			tr.handle(event{typ: typ, subtype: gjson.GetBytes(line, "subtype").String(), line: line})
		}
		if sendErr != nil {
			return fmt.Errorf("replaying history: %w", sendErr)
		}
	}
	return nil
}

// promptUpdates shows a prompt the host sent as user message chunks.
func promptUpdates(content gjson.Result) []acp.SessionUpdate {
	chunk := func(b acp.ContentBlock) acp.SessionUpdate {
		return acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: b}}
	}
	if content.Type == gjson.String {
		return []acp.SessionUpdate{chunk(acp.TextBlock(content.String()))}
	}
	var out []acp.SessionUpdate
	for _, b := range content.Array() {
		if cb, ok := promptBlock(b); ok {
			out = append(out, chunk(cb))
		}
	}
	return out
}

// promptBlock is the ACP form of one content block of a user message:
// text, or a base64 image. Other blocks (tool results, documents) have none.
func promptBlock(b gjson.Result) (acp.ContentBlock, bool) {
	switch b.Get("type").String() {
	case "text":
		return acp.TextBlock(b.Get("text").String()), true
	case "image":
		if b.Get("source.type").String() == "base64" {
			return acp.ContentBlock{Image: &acp.ImageContent{
				Data: b.Get("source.data").String(), MimeType: b.Get("source.media_type").String()}}, true
		}
	}
	return acp.ContentBlock{}, false
}

// historyEnds is how the sub-agents of a recorded conversation ended, by
// Agent call: the state of its task_notification.
func historyEnds(lines []HistoryLine) taskEnds {
	ends := taskEnds{}
	for _, l := range lines {
		if !l.FromAgent || !bytes.Contains(l.Line, []byte(`"task_notification"`)) || !validJSON(bytes.TrimSpace(l.Line)) {
			continue
		}
		root := gjson.ParseBytes(l.Line)
		if root.Get("type").String() == "system" && root.Get("subtype").String() == "task_notification" {
			ends[root.Get("tool_use_id").String()] = root.Get("status").String()
		}
	}
	return ends
}
