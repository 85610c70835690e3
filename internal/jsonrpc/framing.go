package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// clHeader is the header that selects Content-Length framing, lower case.
const clHeader = "content-length:"

// maxHeaderLine bounds one Content-Length framing header line. Real headers
// are a few dozen bytes; anything longer is garbage to resynchronise past.
const maxHeaderLine = 4 << 10

// reader splits the input into messages. It is used only by the stdio pump
// goroutine.
type reader struct {
	br      *bufio.Reader
	limit   int
	framing framing
	// resync is set after malformed Content-Length framing: the next read
	// first skips to the next "Content-Length:" header.
	resync bool
	// alias lets a line that fits the buffer be returned as a slice of
	// it, valid until the next read, rather than as a copy.
	alias bool
}

// next returns the next message, a *TooLargeError, an error wrapping
// ErrParse, or a fatal error (io.EOF at the end).
func (r *reader) next() ([]byte, error) {
	if r.framing == framingUnknown {
		f, err := r.detect()
		if err != nil {
			return nil, err
		}
		r.framing = f
	}
	if r.framing == framingContentLength {
		return r.nextContentLength()
	}
	return r.nextLine()
}

// detect picks the framing from the first non-blank bytes. It peeks no
// further than needed, so a short invalid first line is not held back
// waiting for more input.
func (r *reader) detect() (framing, error) {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return framingUnknown, err
		}
		if !isSpace(b[0]) {
			break
		}
		_, _ = r.br.Discard(1)
	}
	for n := 1; n <= len(clHeader); n++ {
		b, err := r.br.Peek(n)
		if !equalFoldASCII(b, clHeader[:len(b)]) || err != nil {
			return framingNDJSON, nil
		}
	}
	return framingContentLength, nil
}

// nextLine returns the next non-blank line, without its line terminator
// and surrounding whitespace.
func (r *reader) nextLine() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if line = trimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// readLine reads one line ("\n" or "\r\n" terminated, or the unterminated
// rest of the input), without its terminator. A line over the limit is a
// *TooLargeError naming the id found in its first bytes; it is consumed
// without being kept: what was kept of it is dropped the moment it crosses
// the limit, so refusing a line costs no more memory than the limit
// (a 70 MiB line once raised the peak RSS to 194 MB).
//
// The line is kept as a list of the buffer's chunks and joined at the end,
// rather than appended to one growing slice: growing copies the line again
// at each step and leaves the old copies to the collector. With r.alias,
// a line that fits the buffer is not copied at all.
func (r *reader) readLine() ([]byte, error) {
	chunk, err := r.br.ReadSlice('\n')
	if r.alias && err == nil {
		line := chunk[:len(chunk)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) <= r.limit {
			return line, nil
		}
	}
	return r.assemble(chunk, err)
}

// assemble is readLine for a line whose first chunk (and the error that
// came with it) has been read.
func (r *reader) assemble(chunk []byte, err error) ([]byte, error) {
	var (
		parts [][]byte // copies of the chunks so far, while within the limit
		head  []byte   // the first headSize bytes, once over the limit
		over  bool
		size  int     // bytes read, terminator included
		last2 [2]byte // the line's last two bytes so far
	)
	for ; ; chunk, err = r.br.ReadSlice('\n') {
		if err != nil && err != bufio.ErrBufferFull && (err != io.EOF || size+len(chunk) == 0) {
			return nil, err
		}
		if !over && size+len(chunk) > r.limit+2 { // +2: room for "\r\n"
			over, head, parts = true, prefix(parts, chunk, headSize), nil
		}
		if !over {
			parts = append(parts, append([]byte(nil), chunk...))
		}
		size += len(chunk)
		switch n := len(chunk); {
		case n >= 2:
			last2 = [2]byte{chunk[n-2], chunk[n-1]}
		case n == 1:
			last2 = [2]byte{last2[1], chunk[0]}
		}
		if err != bufio.ErrBufferFull {
			break
		}
	}
	if last2[1] == '\n' {
		size--
		if size > 0 && last2[0] == '\r' {
			size--
		}
	}
	if !over && size > r.limit { // within limit+2 only with its terminator
		over, head = true, prefix(parts, nil, headSize)
	}
	if over {
		return nil, tooLarge(size, r.limit, head)
	}
	if len(parts) == 1 {
		return parts[0][:size], nil
	}
	line := make([]byte, 0, size+2)
	for _, p := range parts {
		line = append(line, p...)
	}
	return line[:size], nil
}

// prefix returns a copy of the first n bytes of parts followed by last.
func prefix(parts [][]byte, last []byte, n int) []byte {
	b := make([]byte, 0, n)
	for _, p := range append(parts, last) {
		b = append(b, p[:min(len(p), n-len(b))]...)
	}
	return b
}

// nextContentLength returns the next Content-Length framed message.
func (r *reader) nextContentLength() ([]byte, error) {
	if r.resync {
		if err := r.skipToHeader(); err != nil {
			return nil, err
		}
		r.resync = false
	}
	n, err := r.readHeaders()
	if err != nil {
		r.resync = errors.Is(err, ErrParse)
		return nil, err
	}
	if n > r.limit {
		// Refused at once, without waiting for the body: the length may be
		// bogus ("Content-Length: 99999999999"), and waiting for that many
		// bytes would swallow every later frame. Whatever body follows is
		// skipped up to the next header. Only what has already arrived of
		// it is looked at for an id, so the refusal does not wait either.
		r.resync = true
		b, _ := r.br.Peek(min(n, headSize, r.br.Buffered()))
		return nil, tooLarge(n, r.limit, b)
	}
	body := make([]byte, n)
	if got, err := io.ReadFull(r.br, body); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			// Answered (the sender may still read), then the next read
			// finds the end of the input.
			r.resync = true
			return nil, malformed("the input ended %d bytes into a message of Content-Length %d", got, n)
		}
		return nil, err
	}
	return body, nil
}

// readHeaders reads one header block and returns its Content-Length. Blank
// lines before the block are skipped; headers other than Content-Length
// (Content-Type) are ignored.
func (r *reader) readHeaders() (int, error) {
	length, seen := -1, false
	for {
		line, err := r.headerLine()
		if err == io.EOF {
			if !seen && len(line) == 0 {
				return 0, io.EOF
			}
			return 0, malformed("the input ended inside a header block")
		}
		if err != nil {
			return 0, err
		}
		if len(line) == 0 {
			if !seen {
				continue
			}
			break
		}
		seen = true
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, malformed("header line without a colon: %.60q", line)
		}
		if !equalFoldASCII(trimSpace(name), clHeader[:len(clHeader)-1]) {
			continue
		}
		v, err := strconv.Atoi(string(trimSpace(value)))
		if err != nil || v < 0 {
			return 0, malformed("invalid Content-Length %.40q", trimSpace(value))
		}
		if length >= 0 && length != v {
			return 0, malformed("conflicting Content-Length headers %d and %d", length, v)
		}
		length = v
	}
	if length < 0 {
		return 0, malformed("header block without Content-Length")
	}
	return length, nil
}

// headerLine reads one header line, trimmed of whitespace (so a blank line
// comes back empty). At the end of input it returns what it has with io.EOF.
func (r *reader) headerLine() ([]byte, error) {
	chunk, err := r.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull || len(chunk) > maxHeaderLine:
		return nil, malformed("header line longer than %d bytes", maxHeaderLine)
	case err != nil && err != io.EOF:
		return nil, err
	}
	return trimSpace(chunk), err
}

// skipToHeader discards input up to the next "Content-Length:" (any case),
// which is left unread. It returns io.EOF if the input ends first.
func (r *reader) skipToHeader() error {
	for {
		n := max(r.br.Buffered(), len(clHeader))
		b, err := r.br.Peek(n)
		if i := indexFoldASCII(b, clHeader); i >= 0 {
			_, _ = r.br.Discard(i)
			return nil
		}
		if err != nil {
			return err
		}
		// Keep a tail that may be the start of the header.
		_, _ = r.br.Discard(len(b) - len(clHeader) + 1)
	}
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: malformed Content-Length framing: %s", ErrParse, fmt.Sprintf(format, args...))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// equalFoldASCII reports whether b equals the lower-case ASCII string lower,
// ignoring ASCII case. Header names are ASCII; Unicode folding (the Kelvin
// sign matching "k") has no place here.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexFoldASCII returns the index of the first case-insensitive match of
// lower (which starts with a lower-case letter) in b, or -1. Candidates are
// found with bytes.IndexByte, so skipping a large body to the next header
// is not a byte-by-byte loop.
func indexFoldASCII(b []byte, lower string) int {
	first, upper := lower[0], lower[0]-'a'+'A'
	for i := 0; i+len(lower) <= len(b); i++ {
		j := bytes.IndexByte(b[i:], first)
		if j < 0 {
			j = len(b) - i
		}
		if k := bytes.IndexByte(b[i:i+j], upper); k >= 0 {
			j = k
		}
		if i += j; i+len(lower) > len(b) {
			break
		}
		if equalFoldASCII(b[i:i+len(lower)], lower) {
			return i
		}
	}
	return -1
}
