package pty

import (
	"slices"
	"testing"
	"time"
)

// A title with a UTF-8 character whose encoding holds 0x9C (the 8-bit ST)
// must not leak onto the screen, however the output is split.
func TestTitleStaysOffTheScreen(t *testing.T) {
	out := []byte("\x1b]0;✳ Claude Code\x07hello\x1b]2;◐ busy\x1b\\ world\a")
	for split := 0; split <= len(out); split++ {
		s := newScreen(40, 5, time.Now)
		s.Write(out[:split])
		s.Write(out[split:])
		v := s.view()
		if v.text != "hello world" || v.title != "◐ busy" || v.bells != 1 {
			t.Fatalf("split at %d: text %q, title %q, bells %d; want %q, %q, 1", split, v.text, v.title, v.bells, "hello world", "◐ busy")
		}
	}
}

func TestBracketedPasteMode(t *testing.T) {
	s := newScreen(40, 5, time.Now)
	if s.view().paste {
		t.Fatal("paste mode on before the agent enabled it")
	}
	s.Write([]byte("\x1b[?2004h"))
	if !s.view().paste {
		t.Fatal("paste mode off after DECSET 2004")
	}
	s.Write([]byte("\x1b[?2004l"))
	if s.view().paste {
		t.Fatal("paste mode on after DECRST 2004")
	}
}

func TestStreamSendsOnlyGrowth(t *testing.T) {
	var s stream
	steps := []struct {
		lines []string
		want  string
	}{
		{[]string{"Hello"}, "Hello"},
		{[]string{"Hello from"}, " from"},
		{[]string{"Hello from the"}, " the"},
		{[]string{"Hello from the", "second"}, "\nsecond"},
		{[]string{"Hello from the", "second"}, ""},
		{[]string{"Hello FROM the", "second line"}, " line"}, // a redraw of sent text is not sent again
	}
	for i, st := range steps {
		if got := s.next(st.lines, true); got != st.want {
			t.Fatalf("step %d: next(%q) = %q, want %q", i, st.lines, got, st.want)
		}
	}
}

// A last line of marks alone, such as the blinking bullet a dialog draws
// before its box, is held while the turn runs: read from a frame half
// drawn it would be sent for good and block the line that comes in its
// place. At the turn's end every line is the reply's.
func TestStreamHoldsALastLineOfMarks(t *testing.T) {
	var s stream
	steps := []struct {
		lines []string
		want  string
	}{
		{[]string{"I will run a command.", "●"}, "I will run a command."},
		{[]string{"I will run a command.", "Command ran: 3 files."}, "\nCommand ran: 3 files."},
		{[]string{"I will run a command.", "Command ran: 3 files.", "}"}, ""},
		{[]string{"I will run a command.", "Command ran: 3 files.", "}", "more"}, "\n}\nmore"},
	}
	for i, st := range steps {
		if got := s.next(st.lines, true); got != st.want {
			t.Fatalf("step %d: next(%q) = %q, want %q", i, st.lines, got, st.want)
		}
	}
	s.final = true
	if got := s.next([]string{"I will run a command.", "Command ran: 3 files.", "}", "more", "}"}, true); got != "\n}" {
		t.Errorf("at the turn's end: %q, want the last line of marks sent", got)
	}
}

func TestReplyLinesSkipOldHistoryAndEcho(t *testing.T) {
	base := []string{"> hello", "Hello from the fake TUI. You said: hello"}
	cur := append(append([]string(nil), base...), "> hello", "Hello again", "")
	got, anchored := replyLines(cur, base, "hello")
	if len(got) != 1 || got[0] != "Hello again" || !anchored {
		t.Fatalf("replyLines = %q, want [Hello again]", got)
	}
}

// A reply ends where an earlier prompt of the session shows again below it:
// the Codex CLI, interrupted on a loaded machine, has redrawn its earlier
// turns below the next reply. The prompt of this turn, typed before too, is
// no boundary.
func TestReplyEndsAtAnEarlierPrompt(t *testing.T) {
	lines := []string{"Back after the cancel.", "", "", "› run allowed", "", "✔ You approved codex to run touch allowed-file", "The command ran."}
	if got := cutAtEarlier(lines, []string{"say hi", "run allowed"}, "back again"); !slices.Equal(got, []string{"Back after the cancel."}) {
		t.Errorf("cutAtEarlier = %q, want only this turn's reply", got)
	}
	same := []string{"Hello.", "› say hi", "Hello again."}
	if got := cutAtEarlier(same, []string{"say hi"}, "say hi"); !slices.Equal(got, same) {
		t.Errorf("cutAtEarlier with the same prompt = %q, want it whole", got)
	}
}

// For an agent that echoes its prompts, what it drew after the prompt was
// typed but above the echo (Gemini CLI's banner, drawn late after a
// restart) is not the reply; before the echo shows nothing is.
func TestEchoedReply(t *testing.T) {
	base := []string{"ℹ Skipping project agents due to untrusted folder."}
	banner := append(slices.Clone(base), "Gemini CLI v0.61.0", "Tips for getting started:")
	if got, _ := echoedReply(banner, base, "SAY-HELLO please"); len(got) != 0 {
		t.Errorf("before the echo: %q, want nothing", got)
	}
	if got, _ := replyLines(banner, base, "SAY-HELLO please"); len(got) == 0 {
		t.Error("replyLines reads the banner as the reply: the case shows nothing")
	}
	full := append(slices.Clone(banner), "> SAY-HELLO please", "Hello from the scripted model.")
	if got, _ := echoedReply(full, base, "SAY-HELLO please"); !slices.Equal(got, []string{"Hello from the scripted model."}) {
		t.Errorf("after the echo: %q, want the model's text", got)
	}
}

// When the start of the reply has scrolled off the screen, the lines still
// on it are aligned with what was sent, so nothing is lost or repeated.
func TestStreamAlignsScrolledLines(t *testing.T) {
	var s stream
	if got := s.next([]string{"old", "screen"}, false); got != "" {
		t.Fatalf("unanchored lines before any reply sent %q, want nothing", got)
	}
	if got := s.next([]string{"one", "two", "thr"}, true); got != "one\ntwo\nthr" {
		t.Fatalf("first = %q", got)
	}
	if got, want := s.next([]string{"two", "three", "four"}, false), "ee\nfour"; got != want {
		t.Fatalf("after scrolling = %q, want %q", got, want)
	}
	if got := s.next([]string{"x", "y"}, false); got != "" {
		t.Fatalf("unalignable lines sent %q, want nothing", got)
	}
}

// A frame read while it is drawn has a half-written cursor row (the
// footer "  esc to in…") that must not be taken for reply text.
func TestAboveDropsTheRowBeingDrawn(t *testing.T) {
	s := newScreen(40, 10, time.Now)
	s.Write([]byte("\x1b[H\x1b[2JFakeTUI v1\r\n\r\nHello from\r\n\r\n  esc to in"))
	if got, want := s.view().above(), "FakeTUI v1\n\nHello from\n"; got != want {
		t.Fatalf("above = %q, want %q", got, want)
	}
	s.Write([]byte("\x1b[H"))
	if got := s.view().above(); got != "" {
		t.Fatalf("above with the cursor home = %q, want nothing", got)
	}
}

// Claude Code's prompt is "❯" and a no-break space: the screen reads it as
// a space, so "❯ *$" matches an empty prompt.
func TestNoBreakSpaceReadsAsSpace(t *testing.T) {
	s := newScreen(40, 5, time.Now)
	s.Write([]byte("❯\u00a0\r\n"))
	if got := s.view().text; got != "❯" {
		t.Fatalf("text = %q, want %q", got, "❯")
	}
}
