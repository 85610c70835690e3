package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// Placeholders that replace machine-specific values in recorded lines.
const (
	placeHome    = "/home/user"
	placeProject = "/home/user/project"
	placeTmp     = "/tmp"
	placeAddr    = "127.0.0.1:8642"
	placeTime    = "2026-01-01T00:00:00.000Z"
	placeDate    = "2026-01-01"
	placeOS      = "Linux"
)

// volatileString tells keys whose string values describe the machine the
// CLI ran on rather than the session (the kernel release), with what to put
// in their place.
func volatileString(key string) (string, bool) {
	switch key {
	case "osVersion":
		return placeOS, true
	case "processId": // Codex's command items, a pid as a string
		return "0", true
	case "platform":
		return placePlatform, true
	}
	return "", false
}

// volatileNumber tells keys whose numeric values change from run to run
// (timings in milliseconds, process ids, wall-clock times); they are set to 0.
func volatileNumber(key string) bool {
	switch key {
	case "pid", "start_time", "end_time", "startTime", "endTime",
		// Codex: wall-clock seconds.
		"createdAt", "updatedAt", "startedAt", "completedAt", "recencyAt":
		return true
	}
	return strings.HasSuffix(key, "_ms") || strings.HasSuffix(key, "Ms")
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// opencode's ids (msg_, prt_, ses_...): a time in hex, then random
	// letters.
	timeIDRE = regexp.MustCompile(`\b([a-z]{2,5})_[0-9a-f]{12}[0-9A-Za-z]{14}\b`)
	// Codex's user agent names the distribution and the architecture:
	// "(Debian 12.0.0; x86_64)".
	userAgentOSRE = regexp.MustCompile(`\([A-Za-z][A-Za-z ]* \d+(\.\d+)*; (x86_64|aarch64|arm64|amd64)\)`)
	// Codex's session files are named after the time they were made.
	fileTimeRE = regexp.MustCompile(`(\d{4}-\d\d-\d\d)T\d\d-\d\d-\d\d`)
	// Claude Code's sub-agent ids ("a" and 16 random hex digits; they
	// name the task, its output file and its transcript) and task run ids
	// (a time in base 36, then random hex).
	// The report a sub-agent hands back says how long it ran.
	durationRE = regexp.MustCompile(`(duration_ms: )\d+`)
	agentIDRE  = regexp.MustCompile(`\ba[0-9a-f]{16}\b`)
	runIDRE    = regexp.MustCompile(`\b0[0-9a-z]{8}-[0-9a-f]{8}\b`)
	timeRE     = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	// The CLI's messaging socket is named after its pid, outside TMPDIR.
	sockRE = regexp.MustCompile(`/cc-socks/\d+\.sock`)
	// The CLI's environment block ("# Environment ... - OS Version: ...")
	// names the kernel and platform in its own words: whatever the kernel
	// is called, the recording says placeOS and placePlatform.
	osVersionRE = regexp.MustCompile(`(OS Version: )[^\n"\\]*`)
	platformRE  = regexp.MustCompile(`(Platform: )(linux|darwin|win32|freebsd|openbsd|netbsd|aix|sunos)\b`)
)

// normalizer rewrites recorded lines so that fixtures are reproducible and
// carry no machine paths: temp paths become placeholders, random UUIDs become
// sequential ones (consistently across lines, so a request id and its answer
// still match), timestamps and timings become constants. The session id is
// kept: it is chosen by the recorder and stable.
type normalizer struct {
	paths   *strings.Replacer
	scrub   func(string) string // this machine's values (machine.scrubber)
	dates   []string
	session string
	uuids   map[string]string
	// maxString, if positive, bounds a string value: a longer one keeps
	// its start and says how much was cut (Qwen announces its skills'
	// whole text, half a megabyte, with every session).
	maxString int
}

// newNormalizer maps the real directories of a run to placeholders. dates
// are the calendar dates (YYYY-MM-DD) the run saw: the CLI tells the model
// today's date, and a recording must not depend on the day it was made.
//
// scrub, if not nil, runs after the paths of the run are replaced: it
// removes what the run's environment could not hide (machine.scrubber).
func newNormalizer(session, project, home, tmp, root, addr string, scrub func(string) string, dates ...string) *normalizer {
	pairs := []string{
		project, placeProject,
		home, placeHome,
		tmp, placeTmp,
		root, placeTmp + "/record",
		sanitizePath(project), sanitizePath(placeProject),
		sanitizePath(home), sanitizePath(placeHome),
		sanitizePath(tmp), sanitizePath(placeTmp),
		addr, placeAddr,
	}
	if scrub == nil {
		scrub = func(s string) string { return s }
	}
	return &normalizer{paths: strings.NewReplacer(pairs...), scrub: scrub, dates: dates, session: session, uuids: map[string]string{}}
}

// sanitizePath is how the CLI names a project directory under
// ~/.claude/projects: every character other than [A-Za-z0-9] becomes '-'.
func sanitizePath(p string) string {
	b := []byte(p)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func (n *normalizer) steps(steps []recording.Step) ([]recording.Step, error) {
	out := make([]recording.Step, 0, len(steps))
	for i, st := range steps {
		line, err := n.line(st.Line)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		out = append(out, recording.Step{Dir: st.Dir, Line: line})
	}
	return out, nil
}

func (n *normalizer) str(s string) string {
	s = n.scrub(n.paths.Replace(s))
	s = sockRE.ReplaceAllString(s, "/cc-socks/0.sock")
	s = osVersionRE.ReplaceAllString(s, "${1}"+placeOS)
	s = platformRE.ReplaceAllString(s, "${1}"+placePlatform)
	if timeRE.MatchString(s) {
		return placeTime
	}
	for _, d := range n.dates {
		s = strings.ReplaceAll(s, d, placeDate)
	}
	s = userAgentOSRE.ReplaceAllLiteralString(s, "("+placeOS+"; x86_64)")
	s = fileTimeRE.ReplaceAllString(s, "${1}T00-00-00")
	s = timeIDRE.ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := n.uuids[id]; ok {
			return v
		}
		v := fmt.Sprintf("%s_%026d", id[:strings.IndexByte(id, '_')], len(n.uuids)+1)
		n.uuids[id] = v
		return v
	})
	s = durationRE.ReplaceAllString(s, "${1}0")
	s = n.renumber(s, agentIDRE, "a%016d")
	s = n.renumber(s, runIDRE, "000000000-%08d")
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if u == n.session {
			return u
		}
		if v, ok := n.uuids[u]; ok {
			return v
		}
		v := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(n.uuids)+1)
		n.uuids[u] = v
		return v
	})
}

// renumber replaces every match of re in s by format's sequential
// number, the same one for the same id throughout the recording.
func (n *normalizer) renumber(s string, re *regexp.Regexp, format string) string {
	return re.ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := n.uuids[id]; ok {
			return v
		}
		v := fmt.Sprintf(format, len(n.uuids)+1)
		n.uuids[id] = v
		return v
	})
}

// trim cuts s to maxString bytes (at a rune boundary) and says so.
func (n *normalizer) trim(s string) string {
	if n.maxString <= 0 || len(s) <= n.maxString {
		return s
	}
	cut := n.maxString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d bytes cut by the recorder]", s[:cut], len(s)-cut)
}

// frame is an open JSON container while re-encoding.
type frame struct {
	obj bool
	n   int    // tokens written (keys and values for objects)
	key string // current key (objects)
}

// line re-encodes one JSON value token by token, which keeps key order and
// number formatting, and rewrites volatile values on the way.
func (n *normalizer) line(src []byte) ([]byte, error) {
	if !json.Valid(src) {
		return nil, fmt.Errorf("invalid JSON: %.80s", src)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var out bytes.Buffer
	var stack []frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.n > 0 {
			if !top.obj || top.n%2 == 0 {
				out.WriteByte(',')
			} else {
				out.WriteByte(':')
			}
		}
		if top != nil && top.obj && top.n%2 == 0 { // a key
			top.key = tok.(string)
			writeString(&out, top.key)
			top.n++
			continue
		}
		key := ""
		if top != nil {
			key = top.key
			top.n++
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{obj: v == '{'})
		case string:
			if p, ok := volatileString(key); ok {
				v = p
			}
			writeString(&out, n.trim(n.str(v)))
		case json.Number:
			if volatileNumber(key) {
				out.WriteString("0")
			} else {
				out.WriteString(v.String())
			}
		case bool:
			fmt.Fprint(&out, v)
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), nil
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(w *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
