package codex

import (
	"bytes"
	"io"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// DefaultReadWindow is the ReadWindow of a zero Options: a streamed delta
// waits at most 1 ms, far below what an editor can show, and a fast stream
// is read in batches of tens of lines instead of one at a time.
const DefaultReadWindow = time.Millisecond

// readWindow lets a dense stream of the app-server's output gather between
// reads. Codex writes every delta as a line of its own; read one by one,
// each costs the bridge a wake-up and a read, and the editor an update,
// which on a busy machine take CPU from Codex itself (a 20,000-delta turn
// took 1.3 times as long through the bridge as from the raw app-server).
// Once two reads in a row return data less than window/8 apart, each read
// waits until window has passed since the one before; it stops as soon as
// a read brings fewer than two lines. A read that fills the buffer is a
// backlog, read on at once. While it waits, a pipe that offers ReadNow
// (proc.NowReader) is off the runtime's poller, so the app-server's writes
// meanwhile wake nothing; the batch is then taken with ReadNow, and Read
// (which waits) takes over once the pipe is empty. The turn sends the text
// deltas of a batch as one chunk (turn.gather).
//
// Like the lineReader of adapters/claude, which batches Claude Code's
// stream-JSON the same way; this one only sits under the JSON-RPC reader.
type readWindow struct {
	r        io.Reader
	now      proc.NowReader // r's, or nil
	window   time.Duration
	last     time.Time // when the last read returned data
	batching bool
	backlog  bool // the last read filled its buffer
}

// windowed returns r read through a readWindow; a window of zero or less
// reads r as it is.
func windowed(r io.Reader, window time.Duration) io.Reader {
	if window <= 0 {
		return r
	}
	now, _ := r.(proc.NowReader)
	return &readWindow{r: r, now: now, window: window}
}

func (w *readWindow) Read(b []byte) (int, error) {
	var n int
	var err error
	if w.batching && !w.backlog {
		if w.now != nil {
			// Off the poller before the wait, not after: the writes of
			// the window are the ones that must wake nothing.
			_, _ = w.now.ReadNow(nil)
		}
		if d := w.window - time.Since(w.last); d > 0 {
			time.Sleep(d)
		}
	}
	if w.batching && w.now != nil {
		n, err = w.now.ReadNow(b)
		if n == 0 && err == nil {
			// The stream paused: wait for it to go on.
			w.batching, w.backlog = false, false
		}
	}
	if n == 0 && err == nil {
		n, err = w.r.Read(b)
	}
	if n > 0 {
		t := time.Now()
		switch {
		case n == len(b):
			w.backlog = true
		case w.batching:
			w.batching = w.backlog || bytes.Count(b[:n], []byte{'\n'}) >= 2
			w.backlog = false
		default:
			w.batching = t.Sub(w.last) < w.window/8
			w.backlog = false
		}
		w.last = t
	}
	return n, err
}
