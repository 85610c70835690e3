package recording

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// StepReader reads an agent script one step at a time, so that a player
// never needs the whole script in memory. A StepReader is used by one
// goroutine at a time.
type StepReader interface {
	// Next returns the next step, or io.EOF after the last one. The step's
	// Line is valid only until the next call to Next or Close: copy it to
	// keep it.
	Next() (Step, error)
	// Close releases the reader (its file, for Recording.Script).
	Close() error
}

// DirReader is a StepReader that can pass over the steps of one direction:
// NextOf(dir) is Next, except that a step whose direction is not dir may
// come without its Line (nil), and is then not read whole. A cursor that
// looks only for the host's lines skips a long reply's frame without
// holding it. Recording.Script's readers are DirReaders.
type DirReader interface {
	StepReader
	NextOf(dir Dir) (Step, error)
}

// SliceSteps returns a StepReader over steps, which it neither copies nor
// changes. Its lines stay valid as long as steps does.
func SliceSteps(steps []Step) StepReader {
	return &sliceSteps{steps: steps}
}

type sliceSteps struct {
	steps []Step
	i     int
}

func (s *sliceSteps) Next() (Step, error) {
	if s.i >= len(s.steps) {
		return Step{}, io.EOF
	}
	s.i++
	return s.steps[s.i-1], nil
}

func (s *sliceSteps) Close() error { return nil }

// fileSteps reads the agent section of a Recording from its file.
type fileSteps struct {
	f       io.Closer
	lines   lineReader
	path    string
	first   int  // file line number of the section's first line
	compact bool // every step's JSON is compact in the file: no compaction needed
	want    int  // steps Open counted
	seen    int  // steps returned so far
	buf     bytes.Buffer
}

func (s *fileSteps) Next() (Step, error) { return s.NextOf(0) }

// NextOf is Next, passing over the steps not in direction dir (0: none)
// that are too long for the read buffer.
func (s *fileSteps) NextOf(dir Dir) (Step, error) {
	var other Dir // the direction of a line passed over
	var pass func(head []byte) bool
	if dir != 0 {
		pass = func(head []byte) bool {
			if d := Dir(bytes.TrimSpace(head)[0]); d != dir && (d == ToAgent || d == FromAgent) {
				other = d
				return true
			}
			return false
		}
	}
	for {
		raw, err := s.lines.nextOr(pass)
		if other != 0 && err == nil {
			s.seen++
			return Step{Dir: other}, nil
		}
		if err == io.EOF {
			if s.seen != s.want {
				return Step{}, fmt.Errorf("%s: %w", s.path, ErrChanged)
			}
			return Step{}, io.EOF
		}
		if err != nil {
			return Step{}, fmt.Errorf("reading %s: %w", s.path, err)
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var st Step
		if s.compact {
			// Open checked every line; what could still go wrong is a file
			// rewritten behind our back, which the cheap checks catch.
			st.Dir, st.Line, err = splitStep(line)
			if err == nil && (len(st.Line) == 0 || st.Line[0] != '{') {
				err = fmt.Errorf("want a JSON object")
			}
		} else {
			s.buf.Reset()
			st, err = parseStep(line, &s.buf)
		}
		if err != nil {
			return Step{}, fileError(s.path, SectionAgent, &LineError{s.first + s.lines.n - 1, err})
		}
		s.seen++
		return st, nil
	}
}

func (s *fileSteps) Close() error { return s.f.Close() }

// lineReader returns the lines of a reader one at a time. A line includes
// its '\n' (a last line may lack one) and is valid until the next call: it
// aliases the bufio buffer, or a reused buffer for a line longer than that.
type lineReader struct {
	br      *bufio.Reader
	long    []byte
	longCap int   // when known, the length of the longest line: long is allocated once
	n       int   // lines returned so far
	off     int64 // bytes returned so far
}

// The sizes of a lineReader's buffer. Script's readers start on the small
// one: most read the first steps only (the first prompt, the first turn),
// and each page of buffer a read fills is a page fault at start. Once one
// has read readSize bytes it moves to a buffer of that size.
const (
	firstReadSize = 4 << 10
	readSize      = 64 << 10
)

func newLineReader(r io.Reader, size int) lineReader {
	return lineReader{br: bufio.NewReaderSize(r, size)}
}

// next returns the next line, or io.EOF (or a read error) when there is none.
func (lr *lineReader) next() ([]byte, error) { return lr.nextOr(nil) }

// nextOr is next, except that a line longer than the read buffer for
// which pass (if set) is true of its first bufferful (not all blanks) is
// read past rather than kept: nextOr then returns a nil line.
func (lr *lineReader) nextOr(pass func(head []byte) bool) ([]byte, error) {
	if lr.br.Size() < readSize && lr.off >= readSize {
		// The large buffer reads what is left in the small one first, then
		// from the file directly (a read at least as long as the small
		// buffer bypasses it).
		lr.br = bufio.NewReaderSize(lr.br, readSize)
	}
	frag, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull && pass != nil && len(bytes.TrimSpace(frag)) > 0 && pass(frag) {
		n := len(frag)
		for err == bufio.ErrBufferFull {
			frag, err = lr.br.ReadSlice('\n')
			n += len(frag)
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		lr.n++
		lr.off += int64(n)
		return nil, nil
	}
	if err == bufio.ErrBufferFull {
		if cap(lr.long) < lr.longCap {
			lr.long = make([]byte, 0, lr.longCap)
		}
		lr.long = append(lr.long[:0], frag...)
		for err == bufio.ErrBufferFull {
			frag, err = lr.br.ReadSlice('\n')
			lr.long = append(lr.long, frag...)
		}
		frag = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(frag) == 0 {
		return nil, io.EOF
	}
	lr.n++
	lr.off += int64(len(frag))
	return frag, nil
}
