package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Dir is the direction of a script step, seen from the wrapped CLI.
type Dir byte

const (
	// ToAgent marks a line the CLI read on its stdin: what it expects from
	// the host.
	ToAgent Dir = '<'
	// FromAgent marks a line the CLI wrote on its stdout.
	FromAgent Dir = '>'
)

// String returns "<" or ">" (or a quoted byte for an invalid Dir).
func (d Dir) String() string {
	if d == ToAgent || d == FromAgent {
		return string(rune(d))
	}
	return fmt.Sprintf("Dir(%q)", byte(d))
}

// Step is one line of an agent script.
type Step struct {
	Dir Dir
	// Line is one compact JSON object without a trailing newline.
	Line []byte
}

// LineError is a problem on one line of a section.
type LineError struct {
	// Line is 1-based: within the section for ParseScript, within the file
	// for Load.
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ParseScript parses the body of an agent section. Every step's JSON is
// validated and compacted; an error is a *LineError.
func ParseScript(data []byte) ([]Step, error) {
	return parseScript(data, 1)
}

func parseScript(data []byte, firstLine int) ([]Step, error) {
	var steps []Step
	// Compacting never grows a value, so one buffer of len(data) holds every
	// line and the steps share one allocation.
	buf := bytes.NewBuffer(make([]byte, 0, len(data)))
	err := eachLine(data, firstLine, func(n int, line []byte) error {
		if len(line) == 0 || line[0] == '#' {
			return nil
		}
		st, err := parseStep(line, buf)
		if err != nil {
			return &LineError{n, err}
		}
		steps = append(steps, st)
		return nil
	})
	return steps, err
}

// parseStep parses one agent line (trimmed, neither blank nor a comment),
// appending the compact form of its JSON to buf.
func parseStep(line []byte, buf *bytes.Buffer) (Step, error) {
	d, body, err := splitStep(line)
	if err != nil {
		return Step{}, err
	}
	obj, err := compactObject(buf, body)
	if err != nil {
		return Step{}, err
	}
	return Step{Dir: d, Line: obj}, nil
}

// splitStep splits an agent line (trimmed, neither blank nor a comment) into
// its direction and its JSON text without surrounding blanks.
func splitStep(line []byte) (Dir, []byte, error) {
	d := Dir(line[0])
	if d != ToAgent && d != FromAgent {
		return 0, nil, fmt.Errorf("want \"> {json}\", \"< {json}\", a '#' comment or a blank line")
	}
	if len(line) > 1 && line[1] != ' ' && line[1] != '\t' {
		return 0, nil, fmt.Errorf("want a blank after %q", byte(d))
	}
	return d, bytes.TrimSpace(line[1:]), nil
}

// compactObject appends the compact form of the JSON object src to buf and
// returns it.
func compactObject(buf *bytes.Buffer, src []byte) ([]byte, error) {
	src = bytes.TrimSpace(src)
	if len(src) == 0 || src[0] != '{' {
		return nil, fmt.Errorf("want a JSON object")
	}
	start := buf.Len()
	if err := json.Compact(buf, src); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	b := buf.Bytes()
	return b[start:len(b):len(b)], nil
}

// eachLine calls fn for every line of data with its number and its content
// without surrounding blanks, line ending or carriage return.
func eachLine(data []byte, firstLine int, fn func(n int, line []byte) error) error {
	for n := firstLine; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if err := fn(n, bytes.TrimSpace(line)); err != nil {
			return err
		}
	}
	return nil
}

// FormatScript returns steps as the body of an agent section.
func FormatScript(steps []Step) []byte {
	size := 0
	for _, s := range steps {
		size += len(s.Line) + 3
	}
	buf := make([]byte, 0, size)
	for _, s := range steps {
		buf = append(buf, byte(s.Dir), ' ')
		buf = append(buf, s.Line...)
		buf = append(buf, '\n')
	}
	return buf
}
