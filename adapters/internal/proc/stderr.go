package proc

import (
	"bytes"
	"io"
	"sync"

	"github.com/rs/zerolog"
)

// tailSize is how much of the agent's stderr is kept for errors.
const tailSize = 8 << 10

// stderrTail keeps the last tailSize bytes written to it.
type stderrTail struct {
	mu        sync.Mutex
	buf       []byte // guarded by mu
	truncated bool   // guarded by mu; bytes were dropped from the front
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= tailSize {
		t.buf = append(t.buf[:0], p[len(p)-tailSize:]...)
		t.truncated = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - tailSize; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
		t.truncated = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept bytes; after truncation it starts at the first
// full line when there is one.
func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if t.truncated {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
	}
	return string(b)
}

// maxLogLine bounds a logged stderr line; longer ones are logged in pieces.
const maxLogLine = 4 << 10

// drain copies r into t until EOF or an error, logging each line at debug.
func (t *stderrTail) drain(r io.Reader, log zerolog.Logger) {
	buf := make([]byte, 4<<10)
	var line []byte
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		t.Write(chunk)
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				line = append(line, chunk...)
				if len(line) >= maxLogLine {
					logLine(log, line)
					line = line[:0]
				}
				break
			}
			line = append(line, chunk[:i]...)
			logLine(log, line)
			line = line[:0]
			chunk = chunk[i+1:]
		}
		if err != nil {
			if len(line) > 0 {
				logLine(log, line)
			}
			return
		}
	}
}

func logLine(log zerolog.Logger, line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	log.Debug().Str("stream", "stderr").Msg(string(line))
}
