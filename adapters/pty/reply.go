package pty

import (
	"strings"
	"unicode"
)

// content is the screen's lines without chrome (the input box, borders,
// spinners, the footer: whatever the profile's chrome patterns match), with
// the profile's Strip cut from each.
func (p *Profile) content(text string) []string {
	lines := strings.Split(text, "\n")
	hidden := p.chromeBlocks(text, len(lines))
	var out []string
	for i, l := range lines {
		if hidden[i] || p.isChrome(l) {
			continue
		}
		if p.Strip.set() {
			if loc := p.Strip.FindStringIndex(l); loc != nil && loc[0] == 0 {
				l = l[loc[1]:]
			}
		}
		out = append(out, l)
	}
	return out
}

// chromeBlocks marks the lines covered by the chrome patterns that span
// lines; nil when the profile has none.
func (p *Profile) chromeBlocks(text string, n int) []bool {
	var hidden []bool
	for _, c := range p.Chrome {
		if !spansLines(c) {
			continue
		}
		if hidden == nil {
			hidden = make([]bool, n)
		}
		for _, loc := range c.FindAllStringIndex(text, -1) {
			first := strings.Count(text[:loc[0]], "\n")
			last := first + strings.Count(strings.TrimSuffix(text[loc[0]:loc[1]], "\n"), "\n")
			for i := first; i <= last && i < n; i++ {
				hidden[i] = true
			}
		}
	}
	if hidden == nil {
		return make([]bool, n)
	}
	return hidden
}

// spansLines reports whether a chrome pattern names a line break.
func spansLines(c Pattern) bool {
	return strings.Contains(c.String(), `\n`) || strings.Contains(c.String(), "\n")
}

func (p *Profile) isChrome(line string) bool {
	for _, c := range p.Chrome {
		if spansLines(c) {
			continue
		}
		if loc := c.FindStringIndex(line); loc != nil && loc[0] == 0 && loc[1] == len(line) {
			return true
		}
	}
	return false
}

// replyLines finds the reply of this turn in the screen's content: the lines
// after the echo of the prompt, which itself comes after what was on the
// screen before the prompt was typed (base). Without a visible echo (it
// scrolled away) the reply is the content after base's tail, or all of it.
func replyLines(cur, base []string, prompt string) (lines []string, anchored bool) {
	lines, anchored, _ = replyAfter(cur, base, prompt)
	return lines, anchored
}

// echoedReply is replyLines for an agent that echoes every prompt into its
// history (a profile's echo): until the echo shows, nothing is the reply,
// as whatever the agent drew above it (a banner drawn late) is not.
func echoedReply(cur, base []string, prompt string) (lines []string, anchored bool) {
	lines, anchored, echoed := replyAfter(cur, base, prompt)
	if !echoed && !anchoredOnlyByScroll(cur, base) {
		return nil, false
	}
	return lines, anchored
}

// anchoredOnlyByScroll reports whether base's tail is gone from cur: the
// echo may have scrolled off with it, and the stream aligns what is left.
func anchoredOnlyByScroll(cur, base []string) bool {
	return len(base) > 0 && tailIndex(cur, base) < 0
}

func replyAfter(cur, base []string, prompt string) (lines []string, anchored, echoed bool) {
	from := 0
	if k := tailIndex(cur, base); k >= 0 {
		from, anchored = k, true
	}
	if echo := echoLine(prompt); echo != "" {
		for i := from; i < len(cur); i++ {
			if strings.Contains(cur[i], echo) {
				from, anchored, echoed = i+1, true, true
				// A multi-line prompt echoes more lines; skip the ones
				// that are lines of the prompt.
				for from < len(cur) && from-i < promptLines(prompt) && strings.Contains(prompt, strings.TrimSpace(trimPrefixMarks(cur[from]))) && strings.TrimSpace(cur[from]) != "" {
					from++
				}
				break
			}
		}
	}
	out := append([]string(nil), cur[from:]...)
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return out, anchored, echoed
}

// cutAtEarlier ends a reply at the echo of one of the session's earlier
// prompts: what this turn drew is below its own prompt and above anything
// of the turns before it. A TUI redrawing its history after an interrupt
// (the Codex CLI, on a loaded machine) has put the earlier turns below the
// next reply. An earlier prompt echoed like this one is not a boundary.
func cutAtEarlier(lines []string, earlier []string, prompt string) []string {
	this := echoLine(prompt)
	for i, l := range lines {
		l = strings.TrimSpace(trimPrefixMarks(l))
		if l == "" || l == this {
			continue
		}
		for _, e := range earlier {
			if l == e {
				out := lines[:i]
				for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
					out = out[:len(out)-1]
				}
				return out
			}
		}
	}
	return lines
}

// echoLine is the part of the prompt a TUI echoes recognisably: its first
// non-blank line, trimmed.
func echoLine(prompt string) string {
	for _, l := range strings.Split(prompt, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func promptLines(prompt string) int { return len(strings.Split(strings.TrimSpace(prompt), "\n")) }

func trimPrefixMarks(l string) string {
	return strings.TrimLeft(l, "> │›❯")
}

// tailIndex is where base's last non-blank lines end in cur, or -1.
func tailIndex(cur, base []string) int {
	var tail []string
	for i := len(base) - 1; i >= 0 && len(tail) < 3; i-- {
		if strings.TrimSpace(base[i]) != "" {
			tail = append([]string{base[i]}, tail...)
		}
	}
	if len(tail) == 0 {
		return -1
	}
	var nb []string
	var idx []int
	for i, l := range cur {
		if strings.TrimSpace(l) != "" {
			nb = append(nb, l)
			idx = append(idx, i)
		}
	}
	for i := 0; i+len(tail) <= len(nb); i++ {
		match := true
		for j := range tail {
			if nb[i+j] != tail[j] {
				match = false
				break
			}
		}
		if match {
			return idx[i+len(tail)-1] + 1
		}
	}
	return -1
}

// stream turns successive versions of the reply into the text not yet sent.
// A TUI redraws; what was sent cannot be taken back, so only growth counts:
// the last line sent growing, and new lines.
type stream struct {
	sent  []string // lines sent; the last may still grow
	final bool     // the turn has ended: the screen is the whole reply
}

// Lines that are not anchored (the start of the reply has scrolled off the
// screen) are aligned on the last complete line sent.
func (s *stream) next(lines []string, anchored bool) string {
	if !anchored {
		lines = s.align(lines)
	}
	var b strings.Builder
	for i, l := range lines {
		switch {
		case i < len(s.sent)-1:
		case i == len(s.sent)-1:
			if rest, ok := strings.CutPrefix(l, s.sent[i]); ok && rest != "" {
				b.WriteString(rest)
				s.sent[i] = l
			}
		default:
			if i == len(lines)-1 && !s.final && !hasWord(l) {
				// A last line of marks alone (a bullet, a spinner, a
				// border) is more likely a frame read half drawn, a
				// dialog's marker before its box, than text: it is sent
				// once more follows it or the turn ends.
				return b.String()
			}
			if len(s.sent) > 0 {
				b.WriteString("\n")
			}
			b.WriteString(l)
			s.sent = append(s.sent, l)
		}
	}
	return b.String()
}

// hasWord reports whether s has a letter or a digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// align places lines, which start somewhere in the reply, after the lines
// already sent: at the last occurrence of the last complete line sent.
func (s *stream) align(lines []string) []string {
	if len(s.sent) == 0 {
		// Neither the echo nor the old screen is there yet (a terminal
		// echoes typing late): the reply cannot be told from the rest.
		return nil
	}
	if len(s.sent) < 2 {
		return lines
	}
	k := len(s.sent) - 2
	for j := len(lines) - 1; j >= 0; j-- {
		if lines[j] == s.sent[k] {
			return append(append([]string(nil), s.sent[:k+1]...), lines[j+1:]...)
		}
	}
	return s.sent // nothing to align on: send nothing rather than repeat
}
