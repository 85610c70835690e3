// Package readwindow lets a dense stream of an agent's output gather
// between reads. Claude Code and Codex write every streamed delta as a
// line of its own; read one by one, each costs the bridge a wake-up and a
// read, and the editor an update, which on a busy machine take CPU from
// the agent itself (a 20,000-delta Codex turn took 1.3 times as long
// through the bridge as from the raw app-server). Read in windows, a fast
// stream comes in batches of tens of lines, and the adapters send the
// text deltas of a batch as one chunk.
//
// It is the one read window of the adapters: adapters/claude's line
// reader and adapters/codex's JSON-RPC reader read their agent's stdout
// through it. It imports only the standard library and adapters/internal/proc
// (for proc.NowReader), and nothing of the bridge.
package readwindow

import (
	"bytes"
	"io"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// Reader reads r through a window. Once two reads in a row return data
// less than window/8 apart (lines come faster than 8 a window), each read
// waits until window has passed since the one before, so no line waits
// longer than window; it stops as soon as a read brings fewer than two
// lines. A read that fills its buffer is a backlog, read on at once: the
// window is for a reader that has caught up with the writer.
//
// While it waits, a source that offers ReadNow (proc.NowReader) is off
// the runtime's poller, so the agent's writes meanwhile wake nothing; the
// batch is then taken with ReadNow, and Read (which waits) takes over once
// the source is empty. A source without ReadNow is read with Read, and
// after a backlog as it comes.
//
// A Reader is made by New and used by one goroutine at a time. A window of
// zero or less reads r as it is.
type Reader struct {
	r        io.Reader
	now      proc.NowReader // r's, or nil
	window   time.Duration
	last     time.Time // when the last read returned data
	batching bool
	backlog  bool // the last read filled its buffer

	batch   uint64 // see Batch
	batches uint64 // ReadNow calls that took a batch
}

// New returns r read through a window.
func New(r io.Reader, window time.Duration) Reader {
	now, _ := r.(proc.NowReader)
	return Reader{r: r, now: now, window: window}
}

// Batch tags what the last Read returned: the number of that read if it
// was a ReadNow of a batch (it took what a window gathered, all written
// before it), zero otherwise. Lines with the same non-zero tag were
// written within one window (unless the reader was held up), and may go
// to the editor together.
func (w *Reader) Batch() uint64 { return w.batch }

// Read reads once into b, first waiting out the window while the stream
// is dense.
func (w *Reader) Read(b []byte) (int, error) {
	w.batch = 0
	if w.window <= 0 {
		return w.r.Read(b)
	}
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
	var n int
	var err error
	if w.batching && w.now != nil {
		n, err = w.now.ReadNow(b)
		if n > 0 {
			w.batches++
			w.batch = w.batches
		} else if err == nil {
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
			// A source that can be read quietly stays so; another is
			// read as it comes.
			w.backlog = true
			w.batching = w.now != nil && w.batching
		case w.batching:
			w.batching = w.backlog || bytes.Count(b[:n], newline) >= 2
			w.backlog = false
		default:
			w.batching = t.Sub(w.last) < w.window/8
			w.backlog = false
		}
		w.last = t
	}
	return n, err
}

var newline = []byte{'\n'}
