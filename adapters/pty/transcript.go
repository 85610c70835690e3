package pty

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Transcript says where a TUI writes its conversation as JSON lines, and
// how to find the reply's text in them. The screen is lossy (it wraps long
// lines, renders markdown and hides what scrolled away); the transcript has
// what the model said. When a profile has one, a turn's reply comes from
// the lines the agent appends to it during the turn, each text as it lands,
// and from the screen only when no transcript of the session can be found.
type Transcript struct {
	// Path is a glob of the transcript files. "{home}" stands for the
	// agent's HOME, "{cwd}" for the session's directory, "{cwd-}" for it
	// with every character but letters and digits as "-", and
	// "{env:NAME}" for the agent's environment variable NAME, or its
	// entry in Defaults when the agent has none.
	Path string `toml:"path"`
	// Defaults are the values of "{env:NAME}" for variables the agent's
	// environment does not set; they may use "{home}".
	Defaults map[string]string `toml:"defaults"`
	// Select keeps the lines whose fields (gjson paths) have these
	// string values; empty keeps every line.
	Select map[string]string `toml:"select"`
	// Text is the gjson path of a kept line's text: a string, or an
	// array of strings (a message's text blocks).
	Text string `toml:"text"`
	// Prompt are the fields (gjson paths and string values) of the line
	// that holds the prompt, where the reply starts; empty means any line
	// with the prompt's text. An agent may log its API requests, the
	// prompt among them, before the messages.
	Prompt map[string]string `toml:"prompt"`
}

// envRef is a reference to an environment variable in a transcript's path.
// It and the package's other patterns are compiled when first used: every
// run of the binary links this package, and most never drive a terminal.
var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
})

// glob is the transcript's path for a session in cwd of an agent whose
// home is home and whose environment variables getenv returns.
func (t *Transcript) glob(home, cwd string, getenv func(string) string) string {
	dashed := []rune(cwd)
	for i, r := range dashed {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			dashed[i] = '-'
		}
	}
	re := envRef()
	path := re.ReplaceAllStringFunc(t.Path, func(ref string) string {
		name := re.FindStringSubmatch(ref)[1]
		if v := getenv(name); v != "" {
			return v
		}
		return t.Defaults[name]
	})
	return strings.NewReplacer("{home}", home, "{cwd-}", string(dashed), "{cwd}", cwd).Replace(path)
}

// texts are the texts of the kept lines among lines.
func (t *Transcript) texts(lines [][]byte) []string {
	var out []string
	for _, l := range lines {
		if !gjson.ValidBytes(l) || !t.keeps(l) {
			continue
		}
		r := gjson.GetBytes(l, t.Text)
		vals := []gjson.Result{r}
		if r.IsArray() {
			vals = r.Array()
		}
		for _, v := range vals {
			if v.Type == gjson.String && v.Str != "" {
				out = append(out, v.Str)
			}
		}
	}
	return out
}

func (t *Transcript) keeps(line []byte) bool { return fieldsAre(line, t.Select) }

// fieldsAre reports whether the JSON line has these string fields.
func fieldsAre(line []byte, fields map[string]string) bool {
	for path, want := range fields {
		if r := gjson.GetBytes(line, path); r.Type != gjson.String || r.Str != want {
			return false
		}
	}
	return true
}

// tail follows a session's transcript through one turn: it reads what the
// agent appends after the prompt. The file is the one the session found on
// an earlier turn, or the first that grows with a line naming the prompt
// (several sessions may share a directory, and so a glob).
type tail struct {
	t       *Transcript
	glob    string
	file    string           // the session's transcript once found
	off     int64            // how far file has been read
	sizes   map[string]int64 // the glob's files and sizes when the prompt was typed
	needle  []byte           // the prompt's first line as a JSON string starts
	partial []byte           // a line not yet complete
	// prompted is set at the line holding the prompt: the reply is what
	// follows it. An interrupted turn's partial message is written late,
	// when the next prompt is typed, just before that prompt's line.
	prompted bool
}

// newTail starts following the transcript of a turn whose prompt is about
// to be typed; file is the session's transcript if already known.
func newTail(t *Transcript, glob, file, prompt string) *tail {
	tl := &tail{t: t, glob: glob, file: file, sizes: map[string]int64{}}
	matches, _ := filepath.Glob(glob)
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			tl.sizes[m] = fi.Size()
		}
	}
	if file != "" {
		tl.off = tl.sizes[file]
	}
	// The start of a JSON string, as a JavaScript agent writes it (no
	// HTML escapes): a short prompt ("hi") is then not found inside
	// other text.
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(echoLine(prompt))
	tl.needle = bytes.TrimSuffix(bytes.TrimSpace(q.Bytes()), []byte(`"`))
	return tl
}

// read returns the texts appended since the last read. It finds the
// session's file first, if it must.
func (tl *tail) read() []string {
	if tl.file == "" && !tl.find() {
		return nil
	}
	f, err := os.Open(tl.file)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(tl.off, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(f)
	tl.off += int64(len(b))
	b = append(tl.partial, b...)
	end := bytes.LastIndexByte(b, '\n') + 1
	tl.partial = append([]byte(nil), b[end:]...)
	lines := bytes.Split(b[:end], []byte("\n"))
	for !tl.prompted && len(lines) > 0 {
		tl.prompted = bytes.Contains(lines[0], tl.needle) && fieldsAre(lines[0], tl.t.Prompt)
		lines = lines[1:]
	}
	return tl.t.texts(lines)
}

// find picks the file that grew with a line holding the prompt.
func (tl *tail) find() bool {
	matches, _ := filepath.Glob(tl.glob)
	for _, m := range matches {
		if tl.grewWithPrompt(m) {
			tl.file, tl.off = m, tl.sizes[m]
			return true
		}
	}
	return false
}

func (tl *tail) grewWithPrompt(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(tl.sizes[name], io.SeekStart); err != nil {
		return false
	}
	b, _ := io.ReadAll(f)
	return bytes.Contains(b, tl.needle)
}

// size is the found file's size, or -1.
func (tl *tail) size() int64 {
	if tl.file == "" {
		return -1
	}
	fi, err := os.Stat(tl.file)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// settleTranscript is how long a found transcript must not grow before the
// turn's reply is taken as whole, and maxTranscriptWait how long an idle
// agent's transcript is waited for at the end of a turn (the agent writes
// it just before or after it shows the idle screen).
const (
	settleTranscript  = 100 * time.Millisecond
	maxTranscriptWait = 3 * time.Second
)

// pollTranscript sends the reply texts the transcript gained since the last
// look, one chunk each.
func (t *turn) pollTranscript(ctx context.Context) error {
	for _, text := range t.tail.read() {
		if t.parts > 0 {
			text = "\n\n" + text
		}
		t.parts++
		if err := t.s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: t.s.id,
			Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}}}); err != nil {
			return err
		}
	}
	return nil
}

// finishTranscript reads the rest of the turn's transcript once it stopped
// growing. An agent may write its transcript a while after it shows the
// reply (Claude Code does, under load), so while the screen shows reply
// text the transcript has not, it is waited for; without it, or without a
// transcript of the session, the screen's reply is sent instead, so
// nothing is lost.
func (t *turn) finishTranscript(ctx context.Context, screen string) error {
	s := t.s
	lines, _ := replyLines(s.p.content(screen), t.base, t.prompt)
	onScreen := strings.TrimSpace(strings.Join(lines, "\n")) != ""
	start := s.opts.Now()
	last, since := t.tail.size(), start
	for {
		if err := t.pollTranscript(ctx); err != nil {
			return err
		}
		now := s.opts.Now()
		if size := t.tail.size(); size != last {
			last, since = size, now
		}
		switch {
		case last >= 0 && now.Sub(since) >= settleTranscript && (t.parts > 0 || !onScreen):
			s.transcript = t.tail.file
			return nil
		case now.Sub(start) >= maxTranscriptWait:
			if t.tail.file != "" {
				s.transcript = t.tail.file
			}
			if t.parts > 0 {
				return nil
			}
			s.log.Warn().Str("glob", t.tail.glob).Msg("no reply in the session's transcript: it is read from the screen")
			return t.emit(ctx, screen)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(tick):
		}
	}
}
