package pty

import (
	"fmt"
	"strings"
)

// patternMatch is one of a profile's patterns and the lines of a screen it
// matches (1-based; none when it does not match).
type patternMatch struct {
	what    string // "idle", "busy", `dialog "run"`, `start-up dialog "trust"`
	pattern Pattern
	lines   []int
}

// matches says, for each pattern that tells the state of the screen (idle,
// busy, the dialogs, the start-up dialogs), which lines of text it
// matches: what `pty --explain` shows, and what the errors of a turn that
// a pattern holds name.
func (p *Profile) matches(text string) []patternMatch {
	out := []patternMatch{{what: "idle", pattern: p.Idle}}
	if p.Busy.set() {
		out = append(out, patternMatch{what: "busy", pattern: p.Busy})
	}
	for _, d := range p.Dialogs {
		out = append(out, patternMatch{what: fmt.Sprintf("dialog %q", d.Name), pattern: d.Match})
	}
	for _, d := range p.Startup {
		out = append(out, patternMatch{what: fmt.Sprintf("start-up dialog %q", d.Name), pattern: d.Match})
	}
	for i := range out {
		out[i].lines = matchLines(out[i].pattern, text)
	}
	return out
}

// matchLines are the lines where pattern's matches in text start.
func matchLines(pattern Pattern, text string) []int {
	var lines []int
	for _, loc := range pattern.FindAllStringIndex(text, -1) {
		n := strings.Count(text[:loc[0]], "\n") + 1
		if len(lines) == 0 || lines[len(lines)-1] != n {
			lines = append(lines, n)
		}
	}
	return lines
}

// String is one line: what, the pattern, and where it matches.
func (m patternMatch) String() string {
	where := "does not match"
	switch len(m.lines) {
	case 0:
	case 1:
		where = fmt.Sprintf("matches line %d", m.lines[0])
	default:
		where = "matches lines " + joinInts(m.lines)
	}
	return fmt.Sprintf("%s '%s' %s", m.what, patternText(m.pattern), where)
}

// patternText is the pattern as the profile wrote it.
func patternText(p Pattern) string { return strings.TrimPrefix(p.String(), "(?m)") }

func joinInts(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// matchReport is the matches of text, a line each, for an error.
func (p *Profile) matchReport(text string) string {
	var b strings.Builder
	for _, m := range p.matches(text) {
		b.WriteString("\n  " + m.String())
	}
	return b.String()
}

// numbered is text with its line numbers, as the patterns' lines count.
func numbered(text string, from int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%3d│%s\n", from+i, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
