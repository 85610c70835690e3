package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"
)

// ErrChanged reports that a Recording's file is no longer the one Open read.
var ErrChanged = errors.New("the fixture file changed since it was opened")

// Recording is a fixture opened for streaming: the meta and editor sections
// are parsed in memory, and the agent section stays on disk, read afresh one
// step at a time by each Script call. Memory does not grow with the
// recording, which matters for long ones (a replay of a 30 MB session).
//
// The want section and the comment are not kept; use Load to edit a fixture.
type Recording struct {
	// Path is the file the recording was opened from (its name in the
	// fs.FS of OpenFS).
	Path string
	// Meta holds the meta section's "key: value" lines. Never nil.
	Meta map[string]string
	// Editor holds the editor section's messages, compacted; nil when the
	// file has none.
	Editor []json.RawMessage
	// Profile is the profile section, as written: the profile a PTY
	// recording was made with (TOML), so that it plays without the file
	// the profile came from. Nil when the file has none.
	Profile []byte
	// HasScript reports whether the file has an agent section, and Steps
	// is how many steps it holds.
	HasScript bool
	Steps     int

	agent   span  // the agent section, when HasScript
	fsys    fs.FS // where Path is, for OpenFS; nil for the OS's files
	size    int64
	modTime time.Time
}

// file is what a Recording reads its file through: an *os.File, or a file
// of an fs.FS that can read at an offset (embed.FS's can).
type file interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// open opens the recording's file afresh.
func (r *Recording) open() (file, error) {
	if r.fsys == nil {
		return os.Open(r.Path)
	}
	f, err := r.fsys.Open(r.Path)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(file)
	if !ok {
		f.Close()
		return nil, fmt.Errorf("%s: the file system cannot read its files at an offset", r.Path)
	}
	return ra, nil
}

// span locates a section's data in the file.
type span struct {
	off, n  int64
	line    int  // file line number of the first data line
	longest int  // bytes in the longest line
	compact bool // every step's JSON is already compact
}

// Open reads the fixture at path once, checking every section as Load does
// (errors name the file and line, "path:12: agent: ..."), and keeps only what
// is small. The agent section is then read by Script.
func Open(path string) (*Recording, error) {
	return open(&Recording{Path: path})
}

// OpenFS is Open of the file name in fsys (a recording built into the
// binary with embed.FS), whose files must read at an offset
// (io.ReaderAt).
func OpenFS(fsys fs.FS, name string) (*Recording, error) {
	return open(&Recording{Path: name, fsys: fsys})
}

func open(r *Recording) (*Recording, error) {
	f, err := r.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r.Meta, r.size, r.modTime = map[string]string{}, st.Size(), st.ModTime()
	// The longest line first, so that one buffer of its size holds every
	// long line: grown by doubling, a 600 KB line (a long reply's frame)
	// made the bridge allocate twice that on the way. It is read at an
	// offset, which leaves f where the single pass starts; the pass reads
	// with the same buffer (a new one would be 16 more pages to fault in).
	o := opener{r: r, lines: newLineReader(io.NewSectionReader(f, 0, st.Size()), readSize)}
	longest, err := longestLine(o.lines.br)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", r.Path, err)
	}
	o.lines.br.Reset(f)
	o.lines.longCap = longest
	if err := o.scan(); err != nil {
		return nil, err
	}
	return r, o.finish()
}

// opener is the state of Open's single pass over the file.
type opener struct {
	r     *Recording
	lines lineReader
	names []string // sections seen, for duplicates
	cur   string   // the section being read

	meta, editor         []byte
	metaLine, editorLine int // 0 when the section is absent
	agentErr             error
	buf                  bytes.Buffer
}

func (o *opener) scan() error {
	for {
		start := o.lines.off
		line, err := o.lines.next()
		if err == io.EOF {
			o.endSection(o.lines.off)
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", o.r.Path, err)
		}
		if name, _, ok := headerName(line); ok {
			if slices.Contains(o.names, name) {
				return fmt.Errorf("%s: duplicate section %q", o.r.Path, name)
			}
			o.names = append(o.names, name)
			o.endSection(start)
			o.cur = name
			switch name {
			case SectionMeta:
				o.metaLine = o.lines.n + 1
			case SectionEditor:
				o.editorLine = o.lines.n + 1
			case SectionProfile:
				o.r.Profile = []byte{}
			case SectionAgent:
				o.r.HasScript = true
				o.r.agent = span{off: o.lines.off, line: o.lines.n + 1, compact: true}
			}
			continue
		}
		switch o.cur {
		case SectionMeta:
			o.meta = append(o.meta, line...)
		case SectionEditor:
			o.editor = append(o.editor, line...)
		case SectionProfile:
			o.r.Profile = append(o.r.Profile, line...)
		case SectionAgent:
			o.r.agent.longest = max(o.r.agent.longest, len(line))
			if o.agentErr == nil {
				o.agentErr = o.checkStep(line)
			}
		}
	}
}

// endSection notes where the section being read ends.
func (o *opener) endSection(off int64) {
	if o.cur == SectionAgent {
		o.r.agent.n = off - o.r.agent.off
	}
}

// checkStep validates one line of the agent section and counts the steps.
// It copies nothing: a valid step is checked in place, and only an invalid
// one is parsed as Load does, for its error.
func (o *opener) checkStep(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	_, body, err := splitStep(line)
	if err == nil && (len(body) == 0 || body[0] != '{' || !json.Valid(body)) {
		o.buf.Reset()
		if _, err = parseStep(line, &o.buf); err == nil {
			err = fmt.Errorf("want a JSON object")
		}
	}
	if err != nil {
		return &LineError{o.lines.n, err}
	}
	o.r.Steps++
	if !compactJSON(body) {
		o.r.agent.compact = false
	}
	return nil
}

// compactJSON reports whether the valid JSON text b has no blank outside
// its strings: whether json.Compact would leave it as it is.
func compactJSON(b []byte) bool {
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// longestLine returns the length of br's longest line (with its '\n').
func longestLine(br *bufio.Reader) (int, error) {
	longest, n := 0, 0
	for {
		frag, err := br.ReadSlice('\n')
		n += len(frag)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil, io.EOF:
			longest, n = max(longest, n), 0
		default:
			return 0, err
		}
		if err == io.EOF {
			return longest, nil
		}
	}
}

// finish parses the small sections; errors come in Load's order.
func (o *opener) finish() error {
	var err error
	if o.metaLine > 0 {
		if o.r.Meta, err = parseMeta(o.meta, o.metaLine); err != nil {
			return fileError(o.r.Path, SectionMeta, err)
		}
	}
	if o.agentErr != nil {
		return fileError(o.r.Path, SectionAgent, o.agentErr)
	}
	if o.editorLine > 0 {
		if o.r.Editor, err = parseEditor(o.editor, o.editorLine); err != nil {
			return fileError(o.r.Path, SectionEditor, err)
		}
		if o.r.Editor == nil {
			o.r.Editor = []json.RawMessage{}
		}
	}
	return nil
}

// Check reports whether the file is still the one Open read (same size and
// modification time): an error wrapping ErrChanged when not, or the error of
// opening it.
func (r *Recording) Check() error {
	var st fs.FileInfo
	var err error
	if r.fsys == nil {
		st, err = os.Stat(r.Path)
	} else {
		st, err = fs.Stat(r.fsys, r.Path)
	}
	if err != nil {
		return err
	}
	return r.same(st)
}

func (r *Recording) same(st os.FileInfo) error {
	if st.Size() != r.size || !st.ModTime().Equal(r.modTime) {
		return fmt.Errorf("%s: %w", r.Path, ErrChanged)
	}
	return nil
}

// Script opens the agent section for reading from its first step. Each call
// opens the file anew, so readers are independent; the caller closes them.
// It fails when the file is gone or changed since Open (ErrChanged). A file
// without an agent section gives a reader with no steps.
func (r *Recording) Script() (StepReader, error) {
	if !r.HasScript {
		return SliceSteps(nil), nil
	}
	f, err := r.open()
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = r.same(st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	lines := newLineReader(io.NewSectionReader(f, r.agent.off, r.agent.n), firstReadSize)
	lines.longCap = r.agent.longest
	return &fileSteps{
		f:       f,
		lines:   lines,
		path:    r.Path,
		first:   r.agent.line,
		compact: r.agent.compact,
		want:    r.Steps,
	}, nil
}
