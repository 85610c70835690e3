package claude

import (
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The streaming half of the translator: text and thinking deltas as they
// arrive, merged per read window, and the tool calls a stream announces.

// streamKey names the text or the thinking of one API message.
type streamKey struct {
	msgID   string
	thought bool
}

// streamEvent handles a raw API stream event: text and thinking deltas become
// chunks as they arrive, and a tool_use block start announces the tool call.
func (t *translator) streamEvent(root gjson.Result) {
	e, parent := t.streamMembers(root)
	switch e.Get("type").String() {
	case "message_start":
		t.msgID = orDefault(e.Get("message.id").String(), t.msgID)
		clear(t.blocks)
		t.unclaimed[0].reset()
		t.unclaimed[1].reset()
	case "content_block_start":
		cb := e.Get("content_block")
		switch cb.Get("type").String() {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			id := cb.Get("id").String()
			t.blocks[e.Get("index").Int()] = id
			t.toolStart(id, cb.Get("name").String(), cb.Get("input"), parent)
		case "text":
			t.chunk(cb.Get("text").String(), false, parent)
		case "thinking":
			t.chunk(cb.Get("thinking").String(), true, parent)
		}
	case "content_block_delta":
		if text, thought, ok := deltaText(e); ok {
			t.chunk(text, thought, parent)
		}
	}
}

// streamMembers returns a stream_event line's event and parent tool use,
// and follows its api_message_id, reading the line's members in one pass.
// Deltas usually come the faster way (scanDelta); this is the general path
// and the reference for it.
func (t *translator) streamMembers(root gjson.Result) (e gjson.Result, parent string) {
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "event":
			e = v
		case "parent_tool_use_id":
			parent = v.String()
		case "api_message_id":
			if id := v.String(); id != "" {
				t.msgID = id
			}
		}
		return true
	})
	return e, parent
}

// followAPIID is streamMembers' api_message_id for a scanned delta.
func (t *translator) followAPIID(id []byte) {
	if len(id) > 0 && string(id) != t.msgID {
		t.msgID = string(id)
	}
}

// deltaText returns the text of a text or thinking delta event.
func deltaText(e gjson.Result) (text string, thought, ok bool) {
	d := e.Get("delta")
	switch d.Get("type").String() {
	case "text_delta":
		return d.Get("text").String(), false, true
	case "thinking_delta":
		return d.Get("thinking").String(), true, true
	}
	return "", false, false
}

// pendingChunk is streamed text of one message part, from one read batch,
// not sent yet.
type pendingChunk struct {
	text   []byte
	key    streamKey
	parent string
	batch  uint64
}

// mergeDelta takes ev if it is a text or thinking delta the reader got in
// a batch (event.batch), adding its text to the pending chunk, and reports
// whether it did. Deltas the CLI wrote within one read window thus reach
// the editor as one chunk: the same text at no later a time, in a
// fraction of the updates (a fast stream gathers tens of deltas a
// millisecond, each a frame for the editor to parse). The turn flushes
// the pending chunk before any other event, and whenever it has caught up
// with the reader.
func (t *translator) mergeDelta(ev event) bool {
	d := &ev.delta
	if ev.batch == 0 || !d.ok {
		return false
	}
	t.followAPIID(d.apiID)
	p := &t.pend
	k := streamKey{t.msgID, d.thought}
	if len(p.text) > 0 && (p.batch != ev.batch || p.key != k || p.parent != string(d.parent)) {
		t.flush()
	}
	if len(d.text) == 0 {
		return true
	}
	if len(p.text) == 0 {
		p.key, p.parent, p.batch = k, string(d.parent), ev.batch
	}
	p.text = d.appendText(p.text)
	return true
}

// flush sends the pending chunk, if any.
func (t *translator) flush() {
	p := &t.pend
	if len(p.text) == 0 {
		return
	}
	t.chunkOf(p.key, string(p.text), p.parent)
	p.text = p.text[:0]
}

// chunk sends streamed text or thinking of the current message and
// remembers that it was streamed, so the full assistant frame does not
// repeat it.
func (t *translator) chunk(text string, thought bool, parent string) {
	if text == "" {
		return
	}
	t.chunkOf(streamKey{t.msgID, thought}, text, parent)
}

func (t *translator) chunkOf(k streamKey, text, parent string) {
	if k != t.last {
		t.streamed[k], t.last = true, k
	}
	if parent == "" {
		i := 0
		if k.thought {
			i = 1
		}
		t.unclaimed[i].add(text)
	}
	t.chunkFrom(k.msgID, text, k.thought, parent)
}

func (t *translator) sendChunk(text string, thought bool, parent string) {
	tc := &textChunk{text: acp.TextContent{Text: text}}
	tc.chunk = acp.ContentChunk{Content: acp.ContentBlock{Text: &tc.text}, Meta: parentMeta(parent, "")}
	c := &tc.chunk
	if thought {
		t.send(acp.SessionUpdate{AgentThoughtChunk: c})
	} else {
		t.textOpen = true
		t.send(acp.SessionUpdate{AgentMessageChunk: c})
	}
}

// textChunk is a text chunk and its content block in one allocation: a
// streamed turn makes one per delta.
type textChunk struct {
	chunk acp.ContentChunk
	text  acp.TextContent
}
