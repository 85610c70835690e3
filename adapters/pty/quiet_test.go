package pty

import (
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
