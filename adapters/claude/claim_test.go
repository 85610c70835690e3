package claude

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// TestStreamedTextNotRepeated: the complete assistant frame of a part that
// was streamed is not sent again, whether it carries the streamed
// message's id (Claude Code) or one of its own after a single
// message_start for all blocks (Qwen Code); a frame whose text was not
// streamed is sent.
func TestStreamedTextNotRepeated(t *testing.T) {
	delta := func(kind, field, text string) string {
		return `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"` + kind + `","` + field + `":"` + text + `"}}}`
	}
	start := `{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}}}`
	for _, tt := range []struct {
		name  string
		lines []string
		want  string // chunks, thoughts in brackets, joined by |
	}{
		{"one id", []string{start, delta("text_delta", "text", "Hel"), delta("text_delta", "text", "lo"),
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hello"}]}}`}, "Hel|lo"},
		{"an id per block", []string{start, delta("thinking_delta", "thinking", "Hm."),
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"Hm."}]}}`,
			delta("text_delta", "text", "Hel"), delta("text_delta", "text", "lo"),
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Hello"}]}}`}, "[Hm.]|Hel|lo"},
		{"not streamed", []string{start, delta("text_delta", "text", "Hi"),
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hi"}]}}`,
			`{"type":"assistant","message":{"id":"m9","content":[{"type":"text","text":"Also this."}]}}`}, "Hi|Also this."},
		{"other text", []string{start, delta("text_delta", "text", "Hi"),
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Hi there"}]}}`}, "Hi|Hi there"},
		// The streamed text is compared by length and hash: one of the
		// same length differs, the same one escaped otherwise does not.
		{"other text of the same length", []string{start, delta("text_delta", "text", "Hi"),
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Ho"}]}}`}, "Hi|Ho"},
		{"the same text escaped", []string{start, delta("text_delta", "text", "Hi"), delta("text_delta", "text", " o/"),
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"\u0048i o\/"}]}}`}, "Hi| o/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTranslator("/w", zerolog.Nop())
			var got []string
			tr.emit = func(u acp.SessionUpdate) {
				switch {
				case u.AgentMessageChunk != nil:
					got = append(got, u.AgentMessageChunk.Content.Text.Text)
				case u.AgentThoughtChunk != nil:
					got = append(got, "["+u.AgentThoughtChunk.Content.Text.Text+"]")
				}
			}
			c := newConn(nil, zerolog.Nop(), nil, 0)
			for _, l := range tt.lines {
				c.dispatch([]byte(l), nil, 0, false)
			}
			for {
				ev, ok := c.pop()
				if !ok {
					break
				}
				tr.handle(ev)
			}
			if s := strings.Join(got, "|"); s != tt.want {
				t.Errorf("chunks %q, want %q", s, tt.want)
			}
		})
	}
}
