package pty

import (
	"bytes"
	"os"
	"os/user"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Fixed values a recording holds instead of this machine's.
const (
	normHome    = "/home/user"
	normProject = "/home/user/project"
	normTmp     = "/tmp"
	normUser    = "user"
	normHost    = "host"
)

// machineValues are the values of this machine a recording must not hold.
type machineValues struct {
	home, tmp, user, host string
}

func thisMachine() machineValues {
	var m machineValues
	m.home, _ = os.UserHomeDir()
	m.tmp = os.TempDir()
	if u, err := user.Current(); err == nil {
		m.user = u.Username
	}
	m.host, _ = os.Hostname()
	return m
}

// replacement replaces what re matches with with.
type replacement struct {
	re   *regexp.Regexp
	with []byte
	lit  string // the literal replaced, "" for patterns
}

// replacements are applied in order.
type replacements []replacement

// Dates and times change from one recording to the next.
var (
	datePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`) })
	timePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}\b`) })
)

// replacements are the session's machine values with what replaces them:
// paths longest first (the project directory is inside a temporary or home
// directory), then the user and host names as whole words (short ones
// would hit ordinary words), then dates and times. HOME and TMPDIR in env
// (the agent's overrides) count too.
func (m machineValues) replacements(cwd string, env []string) replacements {
	paths := map[string]string{}
	add := func(p, with string) {
		if p != "" && p != "/" && p != with {
			paths[strings.TrimRight(p, "/")] = with
		}
	}
	add(m.tmp, normTmp)
	add(m.home, normHome)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			add(v, normHome)
		}
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			add(v, normTmp)
		}
	}
	add(cwd, normProject)
	var lits []string
	for p := range paths {
		lits = append(lits, p)
	}
	sort.Slice(lits, func(i, j int) bool {
		return len(lits[i]) > len(lits[j]) || len(lits[i]) == len(lits[j]) && lits[i] < lits[j]
	})
	var out replacements
	for _, p := range lits {
		out = append(out, replacement{re: regexp.MustCompile(regexp.QuoteMeta(p)), with: []byte(paths[p]), lit: p})
	}
	for _, w := range []struct{ v, with string }{{m.user, normUser}, {m.host, normHost}} {
		if len(w.v) >= 3 && w.v != w.with {
			out = append(out, replacement{re: regexp.MustCompile(`\b` + regexp.QuoteMeta(w.v) + `\b`), with: []byte(w.with)})
		}
	}
	return append(out, replacement{re: datePattern(), with: []byte("2000-01-01")},
		replacement{re: timePattern(), with: []byte("00:00:00")})
}

// literal replaces the literal paths in s (for JSON text, where the other
// patterns would hit ids and numbers).
func (rs replacements) literal(s string) string {
	for _, r := range rs {
		if r.lit != "" {
			s = strings.ReplaceAll(s, r.lit, string(r.with))
		}
	}
	return s
}

// normaliseSteps applies rs to the bytes that crossed the terminal in each
// direction as one stream, so a value cut by a read boundary is found too,
// and then moves a UTF-8 sequence cut by a boundary whole into the next
// step, so that steps are JSON text wherever the bytes are UTF-8.
func normaliseSteps(steps []termStep, rs replacements) []termStep {
	var out []termStep
	for i := 0; i < len(steps); {
		j := i
		var run []byte
		var cuts []int
		for ; j < len(steps) && steps[j].dir == steps[i].dir; j++ {
			run = append(run, steps[j].data...)
			cuts = append(cuts, len(run))
		}
		for _, r := range rs {
			run, cuts = replaceCut(run, cuts, r)
		}
		cuts = utf8Cuts(run, cuts)
		from := 0
		var carry time.Duration
		for k := i; k < j; k++ {
			to := cuts[k-i]
			carry += steps[k].delay
			if to == from {
				continue // its bytes moved on; its time goes with them
			}
			out = append(out, termStep{dir: steps[k].dir, delay: carry, data: run[from:to]})
			from, carry = to, 0
		}
		i = j
	}
	return out
}

// replaceCut replaces r's matches in b and moves the cut offsets along: a
// cut inside a match moves to the replacement's end.
func replaceCut(b []byte, cuts []int, r replacement) ([]byte, []int) {
	ms := r.re.FindAllIndex(b, -1)
	if ms == nil {
		return b, cuts
	}
	var out bytes.Buffer
	nc := make([]int, len(cuts))
	ci, prev := 0, 0
	for _, m := range ms {
		for ; ci < len(cuts) && cuts[ci] <= m[0]; ci++ {
			nc[ci] = out.Len() + cuts[ci] - prev
		}
		out.Write(b[prev:m[0]])
		out.Write(r.with)
		for ; ci < len(cuts) && cuts[ci] < m[1]; ci++ {
			nc[ci] = out.Len()
		}
		prev = m[1]
	}
	for ; ci < len(cuts); ci++ {
		nc[ci] = out.Len() + cuts[ci] - prev
	}
	out.Write(b[prev:])
	return out.Bytes(), nc
}

// utf8Cuts moves each cut (but the last) that splits a UTF-8 sequence to
// the sequence's start.
func utf8Cuts(b []byte, cuts []int) []int {
	out := append([]int(nil), cuts...)
	for i := 0; i < len(out)-1; i++ {
		c := out[i]
		for k := 1; k <= 3 && c-k >= 0; k++ {
			if utf8.RuneStart(b[c-k]) {
				if !utf8.FullRune(b[c-k : c]) {
					out[i] = c - k
				}
				break
			}
		}
		if i > 0 && out[i] < out[i-1] {
			out[i] = out[i-1]
		}
	}
	return out
}
