package pty

import (
	"strings"
	"testing"
)

// Screens of the Codex TUI 0.169 (200 columns, trailing blanks trimmed,
// the folder normalised), read by the codex profile without Codex.
const (
	codexLoading = `  >_ OpenAI Codex (v0.169.0)
     ~/project

› Ask Codex to do anything

  ? for shortcuts`
	codexTrust = `  Folder access
  ~/project

  Trust this folder? Codex can read, edit, and run files here, subject to your permission settings.

› 1. Trust and continue
  2. Back to Agent Command Center

  enter continue · esc back`
	codexIdle = `  >_ OpenAI Codex (v0.169.0)
     ~/project

› say hi

• Hello from the scripted model.
  Second line.

  Worked for <1s • 10:00

› Ask Codex to do anything

  GPT-5.5 default · ~/project
  ← for agents · ? for shortcuts                                           ⚠ 1 warning · f2 to view`
	// A prompt submitted while Codex still settles its session waits in
	// its queue, with this hint (seen through a wrapper on a loaded
	// machine; the hint line as it reached the editor then).
	codexQueued = `  >_ OpenAI Codex (v0.169.0)
     ~/project

  shift+← edit last queued message

› Ask Codex to do anything

  GPT-5.5 default · ~/project
  ← for agents · ? for shortcuts`
	codexAsk = `› run allowed

• Running touch allowed-file

  Would you like to run the following command?

  Environment: local

  Reason: make a file

  $ touch allowed-file

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with ` + "`touch allowed-file`" + ` (p)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel`
	codexEdit = `› patch two files

• Edited 2 files (+2 -0)
  └ one.md (+1 -0)
    1 +one

  └ sub/two.md (+1 -0)
    1 +two
    + Show details

  Would you like to make the following edits?

  Description: Apply proposed file edits
  Destination: ~/project/one.md
  Destination: ~/project/sub/two.md


› 1. Yes, proceed (y)
  2. Yes, and don't ask again for these files (a)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel`
)

func TestCodexProfileScreens(t *testing.T) {
	p, err := FindProfile("codex", "")
	if err != nil {
		t.Fatal(err)
	}
	// Before Codex has started its app-server the trust dialog may still
	// come: the bare input box is not idle yet.
	for name, want := range map[string]bool{"loading": false, "trust": false, "idle": true, "dialog": false} {
		screen := map[string]string{"loading": codexLoading, "trust": codexTrust, "idle": codexIdle, "dialog": codexAsk}[name]
		if got := p.Idle.MatchString(screen); got != want {
			t.Errorf("idle(%s) = %v, want %v", name, got, want)
		}
	}
	if p.idle(codexQueued) {
		t.Error("a queued prompt reads as idle")
	}
	if c := strings.Join(p.content(codexQueued), "\n"); strings.Contains(c, "queued") {
		t.Errorf("the queue's hint reads as reply text: %q", c)
	}
	if !p.Startup[0].Match.MatchString(codexTrust) {
		t.Error("the trust dialog is not recognised")
	}
	lines, _ := replyLines(p.content(codexIdle), nil, "say hi")
	if got, want := strings.Join(lines, "\n"), "Hello from the scripted model.\nSecond line."; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	d := p.dialog(codexAsk)
	if d == nil {
		t.Fatal("the command dialog is not recognised")
	}
	if got := d.title(codexAsk); got != "touch allowed-file" {
		t.Errorf("title = %q", got)
	}
	checkOptions(t, d, codexAsk, "allow_once:Yes, proceed:1",
		"allow_always:Yes, and don't ask again for commands that start with `touch allowed-file`:2",
		"reject_once:No, and tell Codex what to do differently:3")
}

// checkOptions checks the options a dialog reads from screen, each as
// "kind:label:keys".
func checkOptions(t *testing.T, d *Dialog, screen string, want ...string) {
	t.Helper()
	opts, keys := d.options(screen)
	var got []string
	for _, o := range opts {
		got = append(got, string(o.Kind)+":"+o.Name+":"+string(keys[o.OptionID]))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("options = %q, want %q", got, want)
	}
}

// TestCodexProfileEditDialog reads Codex's edit-approval dialog: its
// title names every file the patch touches, and its options are typed back
// by their numbers.
func TestCodexProfileEditDialog(t *testing.T) {
	p, err := FindProfile("codex", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Idle.MatchString(codexEdit) {
		t.Error("the edit dialog is taken for the idle screen")
	}
	d := p.dialog(codexEdit)
	if d == nil || d.Name != "edit files" {
		t.Fatalf("dialog = %v, want the edit dialog", d)
	}
	if got, want := d.title(codexEdit), "~/project/one.md, ~/project/sub/two.md"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	checkOptions(t, d, codexEdit, "allow_once:Yes, proceed:1", "allow_always:Yes, and don't ask again for these files:2",
		"reject_once:No, and tell Codex what to do differently:3")
}

// TestCodexProfileDone: the lines that end a Codex turn no report ended,
// and reply lines that do not.
func TestCodexProfileDone(t *testing.T) {
	p, err := FindProfile("codex", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"  Worked for <1s • 10:00", true},
		{"─ Worked for 1m 02s ─────", true},
		{"■ Conversation interrupted - use /feedback if something went wrong", true},
		{`■ {"error":{"message":"bad request","type":"invalid_request_error"}}`, true},
		{"• It worked for me.", false},
		{"  ■ a bullet in the reply", false},
	} {
		if got := p.Signal.Done.MatchString(tt.line); got != tt.want {
			t.Errorf("done(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestCodexProfileFooters: the footer's other states (the shortcuts gone,
// the warnings on the right) are not reply text.
func TestCodexProfileFooters(t *testing.T) {
	p, err := FindProfile("codex", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, footer := range []string{
		"                                                                  ⚠ 2 warnings · f2 to view",
		"                                                                  ⚠ 1 warning · f2 to view",
	} {
		screen := `› say hi

• Hello from the scripted model.

  Worked for <1s • 10:00

› Ask Codex to do anything

  GPT-5.5 default · ~/project
` + footer
		lines, _ := replyLines(p.content(screen), nil, "say hi")
		if got, want := strings.Join(lines, "\n"), "Hello from the scripted model."; got != want {
			t.Errorf("reply with the footer %q = %q, want %q", footer, got, want)
		}
	}
}
