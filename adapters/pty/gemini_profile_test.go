package pty

import "testing"

// Screens of the Gemini CLI TUI 0.61 (trailing blanks trimmed, widths and
// the folder shortened), read by the gemini profile without Gemini.
const (
	geminiReady = `Tips for getting started:
1. Create GEMINI.md files to customize your interactions

                                                  ? for shortcuts
──────────────────────────────────────────────────
 Shift+Tab to accept edits
──────────────────────────────────────────────────
 >   Type your message or @path/to/file
──────────────────────────────────────────────────
 workspace (/directory)      sandbox      /model
 ~/project                   no sandbox   gemini-2.5-flash`
	// Under load: the input box is drawn while the CLI still initializes,
	// and a prompt typed then is queued.
	geminiInitializing = `Tips for getting started:
1. Create GEMINI.md files to customize your interactions

ℹ Initializing... Prompts will be queued.

                                                  ? for shortcuts
──────────────────────────────────────────────────
 Shift+Tab to accept edits
──────────────────────────────────────────────────
 >   Type your message or @path/to/file
──────────────────────────────────────────────────
 workspace (/directory)      sandbox      /model
 ~/project                   no sandbox   gemini-2.5-flash`
	// The Initializing line stays in the history above the turns that
	// came after it.
	geminiInitialized = `Tips for getting started:
1. Create GEMINI.md files to customize your interactions

ℹ Initializing... Prompts will be queued.

> SAY-HELLO please

✦ Hello from the scripted model.

                                                  ? for shortcuts
──────────────────────────────────────────────────
 Shift+Tab to accept edits
──────────────────────────────────────────────────
 >   Type your message or @path/to/file
──────────────────────────────────────────────────
 workspace (/directory)      sandbox      /model
 ~/project                   no sandbox   gemini-2.5-flash`
	geminiQueued = `

  Queued (press ↑ to edit):
    SAY-HELLO please

                                                  ? for shortcuts
──────────────────────────────────────────────────
 Shift+Tab to accept edits
──────────────────────────────────────────────────
 >   Type your message or @path/to/file
──────────────────────────────────────────────────
 workspace (/directory)      sandbox      /model
 ~/project                   no sandbox   gemini-2.5-flash`
)

func TestGeminiProfileScreens(t *testing.T) {
	p, err := FindProfile("gemini", "")
	if err != nil {
		t.Fatal(err)
	}
	// The first prompt waits for the banner, drawn after the input box.
	if p.Ready.MatchString(geminiReady) || !p.Ready.MatchString(" ▝▜▄     Gemini CLI v0.61.0\n"+geminiReady) {
		t.Error("the ready pattern does not tell the banner")
	}
	for name, c := range map[string]struct {
		screen string
		idle   bool
	}{
		"ready":        {geminiReady, true},
		"initializing": {geminiInitializing, false},
		"initialized":  {geminiInitialized, true},
		"queued":       {geminiQueued, false},
	} {
		if got := p.idle(c.screen); got != c.idle {
			t.Errorf("%s: idle = %v, want %v", name, got, c.idle)
		}
	}
}
