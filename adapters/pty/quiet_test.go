package pty

import (
	"strings"
	"testing"
	"time"
)

// A screen is quiet once it has stayed unchanged for the profile's window
// as the turn has seen it. A bridge starved of CPU may first look long
// after a write that left a frame half drawn (the rest not read from the
// PTY yet): that screen is not quiet at once, however old the write, or
// the half frame is taken as the reply (seen on a loaded machine: a box
// border cut short sent as text, and the rest of the reply lost).
func TestQuietCountsFromFirstLook(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	s := &session{p: &Profile{Quiet: Duration(100 * time.Millisecond)}, opts: &Options{Now: clock},
		scr: newScreen(40, 5, clock)}

	s.scr.Write([]byte("a reply\r\n╰────"))
	now = now.Add(time.Second) // the turn was starved meanwhile
	if v := s.scr.view(); s.quiet(v) {
		t.Fatal("a screen first seen now is quiet: its write is a second old, but the rest of the frame may not be read yet")
	}
	now = now.Add(100 * time.Millisecond)
	if v := s.scr.view(); !s.quiet(v) {
		t.Fatal("a screen seen unchanged for the quiet window is not quiet")
	}

	// Watched as it changes, a screen is quiet the window after its change.
	s.scr.Write([]byte("─╯\r\n"))
	if v := s.scr.view(); s.quiet(v) {
		t.Fatal("a screen that just changed is quiet")
	}
	now = now.Add(100 * time.Millisecond)
	if v := s.scr.view(); !s.quiet(v) {
		t.Fatal("the screen is not quiet the window after its last change")
	}
}

// A frame caught half drawn by a starved bridge, its last whole row the
// blinking marker over a dialog not drawn yet: none of it is quiet or
// settled, and the marker is not sent as reply text (seen on a loaded
// machine: "●" sent as a line of the reply).
func TestHalfDrawnFrameSendsNoMarker(t *testing.T) {
	p, err := FindProfile("faketui", "")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	c := newClient(nil)
	s := &session{id: "s", c: c, p: p, opts: &Options{Now: clock}, scr: newScreen(80, 20, clock)}
	tr := &turn{s: s, prompt: "please run it", since: now, submitted: s.scr.view().seq}
	s.scr.Write([]byte("\x1b[H\x1b[2J> please run it\r\nI will run a command.\r\n●\r\nRu"))
	now = now.Add(time.Second) // the turn was starved meanwhile
	if _, done, err := tr.look(t.Context(), s.scr.view()); done || err != nil {
		t.Fatalf("look = %v, %v; want the turn going on", done, err)
	}
	if got := c.text(); strings.Contains(got, "●") {
		t.Errorf("sent %q: the marker of a dialog still being drawn", got)
	}
	if got := c.text(); !strings.HasPrefix(got, "I will run a command.") {
		t.Errorf("sent %q, want the reply line above the marker", got)
	}
}
