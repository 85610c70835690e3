package pty

import "strings"

// oscFilter takes OSC sequences (ESC ] … BEL or ESC \) out of the agent's
// output before the emulator sees them, and keeps the window titles they
// set. The emulator (charmbracelet/x/vt v0.1.0) ends an OSC string at byte
// 0x9C, the 8-bit ST, which is also the middle byte of UTF-8 characters
// such as "✳" (E2 9C B3): Claude Code's idle title "✳ Claude Code" then
// printed "Claude Code" onto the screen. Titles are read here instead.
type oscFilter struct {
	state int             // ground, esc (ESC seen), osc, oscEsc (ESC seen in an OSC)
	buf   strings.Builder // the OSC being read
}

const (
	ground = iota
	esc
	osc
	oscEsc
)

// filter returns b without OSC sequences, and the last title set in b, if
// any ("" and false when none). A sequence may span calls.
func (f *oscFilter) filter(b []byte) (out []byte, title string, titled bool) {
	out = make([]byte, 0, len(b)+1)
	for _, c := range b {
		switch f.state {
		case ground:
			if c == 0x1b {
				f.state = esc
				continue
			}
			out = append(out, c)
		case esc:
			if c == ']' {
				f.state = osc
				f.buf.Reset()
				continue
			}
			f.state = ground
			out = append(out, 0x1b, c)
			if c == 0x1b {
				out = out[:len(out)-1]
				f.state = esc
			}
		case osc:
			switch c {
			case 0x07:
				f.state = ground
				title, titled = f.done(title, titled)
			case 0x1b:
				f.state = oscEsc
			default:
				if f.buf.Len() < 4096 {
					f.buf.WriteByte(c)
				}
			}
		case oscEsc:
			f.state = ground
			title, titled = f.done(title, titled)
			if c != '\\' {
				// ESC started something else: end the OSC there.
				f.state = esc
				out, title, titled = f.resume(out, c, title, titled)
			}
		}
	}
	return out, title, titled
}

func (f *oscFilter) resume(out []byte, c byte, title string, titled bool) ([]byte, string, bool) {
	more, t, ok := f.filter([]byte{c})
	if ok {
		title, titled = t, true
	}
	return append(out, more...), title, titled
}

// done finishes an OSC: OSC 0 and 2 set the window title.
func (f *oscFilter) done(title string, titled bool) (string, bool) {
	s := f.buf.String()
	if t, ok := strings.CutPrefix(s, "0;"); ok {
		return t, true
	}
	if t, ok := strings.CutPrefix(s, "2;"); ok {
		return t, true
	}
	return title, titled
}
