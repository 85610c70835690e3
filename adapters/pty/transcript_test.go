package pty

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func claudeLikeTranscript() *Transcript {
	return &Transcript{Path: "{home}/projects/{cwd-}/*.jsonl", Select: map[string]string{"type": "assistant"},
		Text: `message.content.#(type=="text")#.text`, Prompt: map[string]string{"type": "user"}}
}

func TestTranscriptGlob(t *testing.T) {
	tr := &Transcript{Path: "{env:CONF}/projects/{cwd-}/*.jsonl", Defaults: map[string]string{"CONF": "{home}/.conf"}}
	for _, tt := range []struct{ name, conf, want string }{
		{"the variable", "/c", "/c/projects/-w-my-project-1/*.jsonl"},
		{"its default", "", "/h/.conf/projects/-w-my-project-1/*.jsonl"},
	} {
		got := tr.glob("/h", "/w/my.project_1", func(name string) string {
			if name == "CONF" {
				return tt.conf
			}
			return ""
		})
		if got != tt.want {
			t.Errorf("%s: glob = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTranscriptTexts(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"type":"user","message":{"content":"hi"}}`),
		[]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"one"},{"type":"tool_use","id":"x"},{"type":"text","text":"two"}]}}`),
		[]byte(`{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}`),
		[]byte(`not json`),
		[]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"**three**"}]}}`),
	}
	got := claudeLikeTranscript().texts(lines)
	if want := []string{"one", "two", "**three**"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("texts = %q, want %q", got, want)
	}
}

// The tail finds the session's file among others in the same folder by the
// prompt's line, reads only what follows that line (an interrupted turn's
// partial message lands just before it), and keeps a half-written line for
// the next read.
func TestTail(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.jsonl")
	mine := filepath.Join(dir, "mine.jsonl")
	write := func(name, s string) {
		f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(other, `{"type":"user","message":{"content":"old"}}`+"\n")
	write(mine, `{"type":"assistant","message":{"content":[{"type":"text","text":"before"}]}}`+"\n")
	tl := newTail(claudeLikeTranscript(), filepath.Join(dir, "*.jsonl"), "", "Show <b> & more\nsecond line")
	if got := tl.read(); got != nil {
		t.Fatalf("before anything was written: %q", got)
	}
	write(other, `{"type":"assistant","message":{"content":[{"type":"text","text":"not mine"}]}}`+"\n")
	// The prompt's words inside other text are not the prompt's line, nor
	// is a logged API request with the prompt.
	write(mine, `{"type":"assistant","message":{"content":[{"type":"text","text":"Say: Show <b> & more"}]}}`+"\n"+
		`{"type":"api-request-blob","message":{"content":[{"type":"text","text":"Show <b> & more\nsecond line"}]}}`+"\n"+
		`{"type":"assistant","message":{"content":[{"type":"text","text":"late partial"}]}}`+"\n"+
		`{"type":"user","message":{"content":"Show <b> & more\nsecond line"}}`+"\n"+
		`{"type":"assistant","message":{"content":[{"type":"text","text":"fir`)
	if got := tl.read(); len(got) != 0 || tl.file != mine {
		t.Fatalf("read = %q from %q, want nothing yet from %q", got, tl.file, mine)
	}
	write(mine, `st"}]}}`+"\n")
	if got, want := tl.read(), []string{"first"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("read = %q, want %q", got, want)
	}
}

// With the fake TUI's transcript (-transcript FILE), the reply is the
// transcript's text, exact, though the screen shows it otherwise; without
// a transcript of the session the screen's reply is sent at the end.
func TestReplyFromTranscript(t *testing.T) {
	requireUnix(t)
	p, err := FindProfile("faketui", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, file, want string
		args             []string
	}{
		{name: "found", file: "{cwd}/t.jsonl", want: "*Hello* from the fake TUI. You said: hello"},
		{name: "written after the reply showed", file: "{cwd}/t.jsonl", want: "*Hello* from the fake TUI. You said: hello",
			args: []string{"-transcript-lag", "800ms"}},
		{name: "not found", file: "{cwd}/nowhere/*.jsonl", want: "Hello from the fake TUI. You said: hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := *p
			q.Transcript = &Transcript{Path: tt.file, Text: "text"}
			c := newClient(nil)
			s := fakeSession(t, &q, c, append([]string{"-transcript", "t.jsonl"}, tt.args...)...)
			stop, err := prompt(t, deadline(t), s, "hello")
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			if got := c.text(); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

// A start-up dialog with options is asked of the editor: yes answers it
// with that option's keys; no fails this prompt and the next, saying so.
func TestStartupAskedOfTheEditor(t *testing.T) {
	requireUnix(t)
	p, err := ParseProfile("ask.toml", []byte(`name = "ask"
version = "FakeTUI v1"
idle = '^  \? for shortcuts$'
busy = '^  esc to interrupt$'
quiet = "100ms"
chrome = ['^FakeTUI v\d+ · .*', '^[╭╰]─+[╮╯]$', '^│ > .*│$', '^  (\? for shortcuts|esc to interrupt)$', '^\S Thinking… \(\d+\)$']
[[startup]]
name = "trust"
match = '^Do you trust the files in this folder\?$'
title = '^(Do you trust) the (files) in this folder\?$'
option = [
  { label = "Yes, proceed", kind = "allow_once", keys = ["1"] },
  { label = "No, exit", kind = "reject_once", keys = ["2"] },
]
`))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("yes", func(t *testing.T) {
		c := newClient(choose("Yes, proceed"))
		s := fakeSession(t, p, c, "-trust")
		stop, err := prompt(t, deadline(t), s, "hello")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if len(c.asked) != 1 || *c.asked[0].ToolCall.Title != "Do you trust: files" {
			t.Fatalf("asked %+v, want one request titled %q", c.asked, "Do you trust: files")
		}
	})
	t.Run("no", func(t *testing.T) {
		c := newClient(choose("No, exit"))
		s := fakeSession(t, p, c, "-trust")
		_, err := prompt(t, deadline(t), s, "hello")
		if err == nil || !strings.Contains(err.Error(), `the editor answered "No, exit" to faketui's start-up dialog "trust"`) {
			t.Fatalf("Prompt error = %v, want the editor's no", err)
		}
		if _, err2 := prompt(t, deadline(t), s, "hello"); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("next prompt: %v, want %v", err2, err)
		}
	})
}

// Strip cuts a reply line's marker; a chrome pattern that spans lines hides
// the lines it covers (a tool call's bullet, known by the line below it).
func TestContentStripAndChromeBlocks(t *testing.T) {
	p, err := ParseProfile("c.toml", []byte(`name = "c"
idle = '^❯$'
chrome = ['^  ⎿ .*$', '^(?:● |  )\S.*\n  ⎿  \$ .*\n']
strip = '^(?:● ?|  )'
`))
	if err != nil {
		t.Fatal(err)
	}
	screen := "❯ do it\n● I will run it.\n  It is safe.\n● Running ls\n  ⎿  $ ls\n● Done."
	got := p.content(screen)
	want := []string{"❯ do it", "I will run it.", "It is safe.", "Done."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("content = %q, want %q", got, want)
	}
}

func TestTitleOfJoinsGroups(t *testing.T) {
	var p Pattern
	if err := p.UnmarshalText([]byte(`^ (\S.*)\n(?: Tip: .*\n)? (\S.*)\n Do you`)); err != nil {
		t.Fatal(err)
	}
	text := " Bash command\n Tip: use auto mode\n touch ok.txt\n Do you want to proceed?"
	if got, want := titleOf(p, text, "fallback"), "Bash command: touch ok.txt"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got := titleOf(p, "nothing", "fallback"); got != "fallback" {
		t.Errorf("title of a screen without the dialog = %q, want the fallback", got)
	}
}
