package claude

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

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
		case u.ToolCallUpdate != nil && len(u.ToolCallUpdate.Content) > 0:
			// A sub-agent's text goes under its Agent call, merged.
			got = append(got, "under "+string(u.ToolCallUpdate.ToolCallID)+" "+u.ToolCallUpdate.Content[0].Content.Text.Text)
		default:
			got = append(got, u.Kind())
		}
	}
	c := newConn(nil, zerolog.Nop(), nil, 0)
	for _, l := range lines {
		c.dispatch([]byte(l.line), nil, l.batch, false)
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
		"under toolu_1 subagent",
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

// A turn that catches up with the reader in the middle of a batch waits for
// the rest of it: each batch read goes out as one chunk, however the reader
// and the turn interleave.
func TestMergeWholeBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := &timedSource{start: time.Now()}
		var want strings.Builder
		for i := range 3000 {
			text := fmt.Sprintf("d%d ", i)
			want.WriteString(text)
			ts.at = append(ts.at, time.Duration(i)*5*time.Microsecond)
			ts.lines = append(ts.lines, fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}},"parent_tool_use_id":null}`+"\n", text))
		}
		src := &quietSource{timedSource: ts}
		c := newConn(&stubProc{out: src}, zerolog.Nop(), nil, time.Millisecond)
		var wg sync.WaitGroup
		c.start(&wg)
		tr := newTranslator("/w", zerolog.Nop())
		var got strings.Builder
		chunks := 0
		tr.emit = func(u acp.SessionUpdate) {
			chunks++
			got.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
		exited := false
		for !exited {
			c.drain(tr, func(ev event) {
				if exited = ev.exit; !exited {
					tr.handle(ev)
				}
			}, func() bool { return exited })
			if !exited {
				<-c.notify
			}
		}
		wg.Wait()
		if got.String() != want.String() {
			t.Fatalf("the chunks make %d bytes that are not the %d of the deltas", got.Len(), want.Len())
		}
		// Lines a Read returned are not from a batch: a chunk each.
		if wantChunks := src.batches + src.readLines; chunks != wantChunks {
			t.Errorf("%d chunks for %d batches and %d lines read one by one", chunks, src.batches, src.readLines)
		}
		if src.batches < 10 {
			t.Errorf("only %d batches: the stream was not read in windows", src.batches)
		}
	})
}

// stubProc is a process whose output is out.
type stubProc struct{ out io.Reader }

func (p *stubProc) Stdin() io.WriteCloser      { return nopCloser{io.Discard} }
func (p *stubProc) Stdout() io.Reader          { return p.out }
func (p *stubProc) Wait() error                { return nil }
func (p *stubProc) Stop(context.Context) error { return nil }
func (p *stubProc) Pid() int                   { return 0 }
func (p *stubProc) StderrTail() string         { return "" }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
