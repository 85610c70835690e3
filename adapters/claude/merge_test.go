package claude

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Deltas the reader got in one batch go out as one chunk; nothing else
// changes: the text, its order, the split between text and thinking,
// message and sub-agent, and what the full assistant frame repeats.
func TestMergeDeltas(t *testing.T) {
	delta := func(kind, text, parent string) string {
		field := map[string]string{"text_delta": "text", "thinking_delta": "thinking"}[kind]
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":%q,%q:%q}},"parent_tool_use_id":%s}`, kind, field, text, p)
	}
	type in struct {
		line  string
		batch uint64
	}
	lines := []in{
		{`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}}`, 1},
		{delta("thinking_delta", "Let me ", ""), 1},
		{delta("thinking_delta", "think.", ""), 1},
		{delta("text_delta", "Hel", ""), 1},
		{delta("text_delta", "lo ", ""), 1},
		{delta("text_delta", "", ""), 1}, // empty: nothing to add
		{delta("text_delta", "wor", ""), 2},
		{delta("text_delta", "ld", ""), 2},
		{delta("text_delta", "sub", "toolu_1"), 2},
		{delta("text_delta", "agent", "toolu_1"), 2},
		{delta("text_delta", "!", ""), 2},
		{delta("text_delta", " one", ""), 0}, // not batched: one chunk each
		{delta("text_delta", " by one", ""), 0},
		{delta("text_delta", " again", ""), 3},
		{`{"type":"stream_event","event":{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"Bash","input":{}}}}`, 3},
		{delta("text_delta", " after", ""), 3},
		{`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"Let me think."},{"type":"text","text":"Hello world! one by one again after"}]}}`, 3},
	}
	var got []string
	tr := newTranslator("/w", zerolog.Nop())
	tr.emit = func(u acp.SessionUpdate) {
		switch {
		case u.AgentMessageChunk != nil:
			parent := ""
			if m := u.AgentMessageChunk.Meta; m != nil {
				parent = fmt.Sprint(m["claudeCode"])
			}
			got = append(got, "text "+u.AgentMessageChunk.Content.Text.Text+" "+parent)
		case u.AgentThoughtChunk != nil:
			got = append(got, "thought "+u.AgentThoughtChunk.Content.Text.Text)
		default:
			got = append(got, u.Kind())
		}
	}
	c := newConn(nil, zerolog.Nop(), nil, 0)
	for _, l := range lines {
		c.dispatch([]byte(l.line), nil, l.batch)
		ev, ok := c.pop()
		if !ok {
			t.Fatalf("%s: no event", l.line)
		}
		if !tr.mergeDelta(ev) {
			tr.flush()
			tr.handle(ev)
		}
	}
	tr.flush()
	want := []string{
		"thought Let me think.",
		"text Hello  ",
		"text world ",
		"text subagent map[parentToolUseId:toolu_1]",
		"text ! ",
		"text  one ",
		"text  by one ",
		"text  again ",
		"tool_call",
		"text  after ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
