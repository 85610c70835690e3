package pty

import (
	"io"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// screen is the terminal emulator's view of the agent's output: what a
// person would read, not the escape codes. Write is called by the one
// goroutine that reads the PTY; the rest by the turn.
type screen struct {
	mu      sync.Mutex
	emu     *vt.Emulator  // guarded by mu
	seq     uint64        // guarded by mu; counts writes that changed the text
	text    string        // guarded by mu; the text after the last write
	last    time.Time     // guarded by mu; when the text last changed
	bells   int           // guarded by mu
	paste   bool          // guarded by mu; bracketed paste enabled by the agent
	title   string        // guarded by mu
	row     int           // guarded by mu; the cursor's row after the last write
	osc     oscFilter     // guarded by mu
	changed chan struct{} // 1-buffered: a write changed the screen
	now     func() time.Time
}

func newScreen(cols, rows int, now func() time.Time) *screen {
	s := &screen{emu: vt.NewEmulator(cols, rows), changed: make(chan struct{}, 1), now: now}
	s.last = now()
	s.emu.SetCallbacks(vt.Callbacks{
		Bell: func() { s.bells++ },
		EnableMode: func(m ansi.Mode) {
			if m == ansi.ModeBracketedPaste {
				s.paste = true
			}
		},
		DisableMode: func(m ansi.Mode) {
			if m == ansi.ModeBracketedPaste {
				s.paste = false
			}
		},
	})
	return s
}

// Write feeds agent output to the emulator. The emulator's answers to the
// agent's queries (cursor position, device attributes) come out of replies.
func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	bells, title := s.bells, s.title
	clean, t, titled := s.osc.filter(b)
	if titled {
		s.title = t
	}
	_, err := s.emu.Write(clean)
	text := render(s.emu)
	s.row = s.emu.CursorPosition().Y
	changed := text != s.text || s.bells != bells || s.title != title
	if changed {
		s.text = text
		s.seq++
		s.last = s.now()
	}
	s.mu.Unlock()
	if changed {
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	return len(b), err
}

// replies is the emulator's output to the agent. It ends when close is
// called.
func (s *screen) replies() io.Reader { return s.emu }

// close ends replies; call it once Write is no longer called. It closes the
// emulator's reply pipe rather than calling Emulator.Close, which writes a
// flag that Emulator.Read reads without a lock.
func (s *screen) close() {
	if c, ok := s.emu.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
}

// view is a snapshot of the screen.
type view struct {
	text  string
	seq   uint64
	last  time.Time
	bells int
	paste bool
	title string
	row   int // the cursor's row
}

func (s *screen) view() view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return view{text: s.text, seq: s.seq, last: s.last, bells: s.bells, paste: s.paste, title: s.title, row: s.row}
}

// render is the screen's text: lines right-trimmed, no-break spaces as
// spaces, trailing blank lines dropped.
func render(e *vt.Emulator) string {
	lines := strings.Split(e.String(), "\n")
	for i, l := range lines {
		// A no-break space reads as a space (Claude Code's prompt is
		// "❯\u00a0"); profiles need not spell it.
		lines[i] = strings.TrimRight(strings.ReplaceAll(l, "\u00a0", " "), " \t")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// above is the text of the rows above the cursor: on a screen still being
// drawn, the cursor's row may be half-written and the rows below it not
// yet redrawn.
func (v view) above() string { return v.aboveAllBut(0) }

// aboveAllBut is above less its last n rows: on a screen caught mid-frame,
// the last whole row above the cursor may yet turn out to belong to what is
// drawn below it (the blinking marker over a dialog).
func (v view) aboveAllBut(n int) string {
	row := max(v.row-n, 0)
	lines := strings.SplitN(v.text, "\n", row+1)
	if len(lines) > row {
		lines = lines[:row]
	}
	return strings.Join(lines, "\n")
}
