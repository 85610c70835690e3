package rpcchild

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// readBuffer is the size of the reader's buffer: a child streaming a turn
// writes in chunks of this order (a 64 KiB pipe), so most lines are
// handed on straight from it, with no copy.
const readBuffer = 64 << 10

// Run reads the child's output until it ends, dispatching each line, then
// fails every pending call with the end's error (Options.Ended) and closes
// Done. Lines that are blank, not JSON or not a JSON-RPC message are
// skipped (and logged): the child's stdout may carry stray output, which
// must not end the session.
func (c *Conn) Run(r io.Reader) {
	br := bufio.NewReaderSize(r, readBuffer)
	var long []byte // a line longer than the buffer, reassembled
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var over bool
			long, over, err = c.readLong(br, append(long[:0], line...))
			line = long
			if over {
				c.tooLong(line)
				line = nil
			}
			if cap(long) > 4*readBuffer {
				long = nil // one huge message must not pin its buffer
			}
		}
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			c.end(err)
			return
		}
	}
}

// readLong reads the rest of a line that did not fit the buffer. Past
// MaxLine it keeps only the start (for tooLong) and discards the rest up
// to the newline.
func (c *Conn) readLong(br *bufio.Reader, buf []byte) ([]byte, bool, error) {
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			buf = append(buf, chunk...)
			if len(buf) > c.opts.MaxLine {
				over = true
				buf = buf[:readBuffer]
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, over, err
		}
	}
}

// tooLong reports a skipped line. When its start shows it answers a
// pending call, that call fails rather than wait for an answer that was
// thrown away.
func (c *Conn) tooLong(head []byte) {
	err := fmt.Errorf("%s wrote a message over %d bytes; skipped", c.opts.Name, c.opts.MaxLine)
	c.opts.Logger.Warn().Err(err).Msg("reading the child")
	id, ok := answerID(head)
	if !ok {
		return
	}
	c.mu.Lock()
	deliver := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if deliver != nil {
		deliver(nil, err)
	}
}

// answerID finds the numeric id of a response from the start of its line:
// an "id" member before any "method" member. It is a heuristic for a line
// that cannot be parsed whole; a false "no" only leaves a call to its
// caller's deadline.
func answerID(head []byte) (int64, bool) {
	i := bytes.Index(head, []byte(`"id":`))
	if i < 0 || bytes.Contains(head[:i], []byte(`"method"`)) {
		return 0, false
	}
	rest := head[i+len(`"id":`):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 || j == len(rest) || bytes.Contains(rest[j:min(len(rest), j+4096)], []byte(`"method"`)) {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return id, err == nil
}

// dispatch routes one line: answers to their calls, the rest to Handle.
func (c *Conn) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if c.opts.Trace != nil {
		c.opts.Trace(false, line)
	}
	var ok bool
	c.cur, ok = split(line)
	m := &c.cur
	if !ok {
		what := "not a JSON-RPC message"
		if !json.Valid(line) {
			what = "not JSON"
		}
		c.opts.Logger.Warn().Int("bytes", len(line)).Msgf("child wrote a line that is %s; skipped", what)
		return
	}
	switch {
	case m.Method == "" && len(m.ID) > 0:
		c.retire(m)
	case m.Method != "":
		c.opts.Handle(m)
	default:
		c.opts.Logger.Warn().Int("bytes", len(line)).Msg("child wrote a message with neither method nor id; skipped")
	}
}
