package pty

import (
	"strings"
	"testing"
)

// The claude profile's permission question is the dialog's heading and
// what it asks about, for the dialogs Claude Code 2.1.329 showed (screens
// as the emulator reads them, paths shortened).
func TestClaudeDialogTitles(t *testing.T) {
	p, err := FindProfile("claude", "")
	if err != nil {
		t.Fatal(err)
	}
	rule, dots := strings.Repeat("─", 40), strings.Repeat("╌", 40)
	for _, tt := range []struct{ name, screen, want string }{
		{"bash", "● Creating ok.txt\n" + rule + "\n Bash command\n Tip: auto mode handles these prompts for you\n Create ok.txt\n" + dots +
			"\n touch /p/ok.txt\n" + dots + "\n Do you want to proceed?\n ❯ 1. Yes\n   2. No", "Bash command: touch /p/ok.txt"},
		{"write", "● Write(notes.md)\n" + rule + "\n Create file\n notes.md\n" + dots + "\n  1 # Notes\n" + dots +
			"\n Do you want to create notes.md?\n ❯ 1. Yes\n   3. No", "Create file: notes.md"},
		{"edit", "● Update(notes.md)\n" + rule + "\n Edit file\n notes.md\n" + dots + "\n 1 -# Notes\n 1 +# My notes\n" + dots +
			"\n Do you want to make this edit to notes.md?\n ❯ 1. Yes\n   3. No", "Edit file: notes.md"},
	} {
		d := p.dialog(tt.screen)
		if d == nil {
			t.Errorf("%s: no dialog recognised", tt.name)
			continue
		}
		if got := d.title(tt.screen); got != tt.want {
			t.Errorf("%s: title = %q, want %q", tt.name, got, tt.want)
		}
	}
}
