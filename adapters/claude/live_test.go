package claude

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// liveWorld is a tasks folder with one stale output file in it.
func liveWorld(t *testing.T, termMeta bool) (*liveShells, func(name, s string), *[]acp.ToolCallUpdate) {
	dir := t.TempDir()
	write := func(name, s string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write("old.output", "an earlier command\n")
	var got []acp.ToolCallUpdate
	return newLiveShells(dir, termMeta), write, &got
}

func liveText(u acp.ToolCallUpdate) string {
	if len(u.Content) == 0 || u.Content[0].Content == nil || u.Content[0].Content.Text == nil {
		return ""
	}
	return u.Content[0].Content.Text.Text
}

// TestLiveShellForeground follows a foreground command: its file is the
// first new one, each poll sends the output so far, and the result ends it.
func TestLiveShellForeground(t *testing.T) {
	l, write, got := liveWorld(t, true)
	send := func(u acp.SessionUpdate) { *got = append(*got, *u.ToolCallUpdate) }
	l.watch("t1")
	l.poll(send) // no file yet
	write("abc.output", "line1\n")
	l.poll(send)
	l.poll(send) // nothing new
	write("abc.output", "line2\n")
	l.poll(send)
	l.finished("t1", gjson.Parse(`{"stdout":"line1\nline2"}`))
	write("abc.output", "after the result\n")
	l.poll(send)
	if l.active() {
		t.Error("still tailing after the result")
	}
	want := []struct{ text, chunk string }{
		{"```console\nline1\n```", "line1\n"},
		{"```console\nline1\nline2\n```", "line2\n"},
	}
	if len(*got) != len(want) {
		t.Fatalf("%d updates, want %d: %+v", len(*got), len(want), *got)
	}
	for i, w := range want {
		u := (*got)[i]
		chunk := u.Meta["terminal_output"].(map[string]any)["data"]
		if liveText(u) != w.text || chunk != w.chunk || u.ToolCallID != "t1" {
			t.Errorf("update %d: text %q chunk %q, want %q %q", i, liveText(u), chunk, w.text, w.chunk)
		}
	}
}

// TestLiveShellBackground follows a background command past its result
// until its task ends, and sends what it wrote last.
func TestLiveShellBackground(t *testing.T) {
	l, write, got := liveWorld(t, false)
	send := func(u acp.SessionUpdate) { *got = append(*got, *u.ToolCallUpdate) }
	l.watch("fg") // a foreground command running at the same time
	l.watch("bg")
	l.started("bg", "task9", true)
	write("task9.output", "bg1\n")
	write("fg1.output", "fg\n")
	l.finished("bg", gjson.Parse(`{"backgroundTaskId":"task9"}`))
	l.poll(send)
	write("task9.output", "bg2\n")
	l.taskEnded("task9", send)
	l.finished("fg", gjson.Result{})
	if l.active() {
		t.Error("still tailing after the task ended")
	}
	texts := map[acp.ToolCallID][]string{}
	for _, u := range *got {
		if u.Meta != nil {
			t.Errorf("terminal_output sent to an editor that did not ask: %v", u.Meta)
		}
		texts[u.ToolCallID] = append(texts[u.ToolCallID], liveText(u))
	}
	if strings.Join(texts["bg"], "|") != "```console\nbg1\n```|```console\nbg1\nbg2\n```" {
		t.Errorf("background updates %q", texts["bg"])
	}
	if strings.Join(texts["fg"], "|") != "```console\nfg\n```" {
		t.Errorf("foreground updates %q (the background task's file must not be taken for it)", texts["fg"])
	}
}

// TestLiveShellBounded keeps only the end of a long output.
func TestLiveShellBounded(t *testing.T) {
	l, write, got := liveWorld(t, false)
	send := func(u acp.SessionUpdate) { *got = append(*got, *u.ToolCallUpdate) }
	l.watch("t1")
	l.started("t1", "big", false)
	write("big.output", strings.Repeat("x", 3*liveRead)+"END\n")
	for range 4 {
		l.poll(send)
	}
	last := liveText((*got)[len(*got)-1])
	if len(last) > liveKeep+64 || !strings.Contains(last, "END") {
		t.Errorf("last update: %d bytes, ends %q", len(last), last[max(0, len(last)-10):])
	}
	if len(*got) != 4 {
		t.Errorf("%d updates for %d bytes read %d at a time, want 4", len(*got), 3*liveRead+4, liveRead)
	}
}

// TestTasksDir pins where the CLI keeps task output.
func TestTasksDir(t *testing.T) {
	uid := "claude-" + strconv.Itoa(os.Getuid())
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"TMPDIR=/t", "CLAUDE_CODE_TMPDIR=/c"}, "/c/" + uid + "/-w-my-proj/s1/tasks"},
		{[]string{"CLAUDE_CODE_TMPDIR=", "TMPDIR=/t"}, "/t/" + uid + "/-w-my-proj/s1/tasks"},
	}
	for _, tt := range tests {
		if got := tasksDir(tt.env, "/w/my.proj", "s1"); got != tt.want {
			t.Errorf("tasksDir(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// BenchmarkLivePollIdle is the cost of one poll of a running command that
// wrote nothing new: what a quiet long command costs every livePoll.
func BenchmarkLivePollIdle(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.output"), []byte("started\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	l := newLiveShells(dir, true)
	l.watch("t1")
	l.started("t1", "t", false)
	sent := 0
	send := func(acp.SessionUpdate) { sent++ }
	l.poll(send)
	b.ReportAllocs()
	for b.Loop() {
		l.poll(send)
	}
	if sent != 1 {
		b.Fatalf("%d updates, want 1", sent)
	}
}
