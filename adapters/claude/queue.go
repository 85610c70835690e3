package claude

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/readwindow"
)

// ring is a FIFO of events. Within the queue's bounds it reuses one array,
// so a long turn allocates nothing per event; past them (see conn) it grows,
// and it lets go of a grown array once it is empty again.
type ring struct {
	buf  []event
	head int // index of the oldest event
	n    int // events queued
}

func (r *ring) push(ev event) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = ev
	r.n++
}

func (r *ring) pop() (event, bool) {
	if r.n == 0 {
		return event{}, false
	}
	ev := r.buf[r.head]
	r.buf[r.head] = event{} // drop references to the line and the error
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	if r.n == 0 && len(r.buf) > queueEvents {
		*r = ring{}
	}
	return ev, true
}

func (r *ring) grow() {
	size := max(2*len(r.buf), 16)
	buf := make([]event, size)
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}

// slabSize is the size of the lineReader's read buffers.
const slabSize = 64 << 10

// maxFreeSlabs bounds a conn's free list: enough for the queue's bounds
// with lines of a usual size, and for a long line's fragments.
const maxFreeSlabs = 8

// slab is a read buffer whose lines are handed out in events. It is reused
// once the reader has moved past it and every line handed out of it, or
// fragment kept of it, has been recycled.
type slab struct {
	buf  []byte
	refs atomic.Int32 // lines handed out and not recycled, plus one while the reader fills it
}

// slabs is a conn's free list of slabs.
type slabs struct {
	mu   sync.Mutex
	free []*slab // guarded by mu
}

func (p *slabs) get() *slab {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	return &slab{buf: make([]byte, slabSize)}
}

// unref drops one reference to s, freeing it with the last.
func (p *slabs) unref(s *slab) {
	if s == nil || s.refs.Add(-1) != 0 {
		return
	}
	p.mu.Lock()
	if len(p.free) < maxFreeSlabs {
		p.free = append(p.free, s)
	}
	p.mu.Unlock()
}

// lineReader splits a reader into '\n'-terminated lines of at most maxLine
// bytes. It reads straight into fixed-size buffers (slabs) and hands out
// lines as slices of them, so reading costs no allocation per line. A line
// stays valid until it is recycled (pool.unref of its slab): slabs are
// reused, so a line kept past that would change under its holder.
//
// A line cut by the end of a slab continues in the next one: a short start
// is copied there, a long one stays where it is as a fragment, and the
// fragments are joined once the line is complete, into a buffer of its own
// (no slab) of exactly its size. So a long line costs one allocation of its
// size, not a series of doubling buffers.
type lineReader struct {
	r     io.Reader
	pool  *slabs
	limit int   // the longest line allowed; maxLine when 0
	cur   *slab // the slab being filled; cur.buf[start:end] is read but not handed out
	start int
	scan  int // cur.buf[start:scan] holds no '\n'
	found int // the end of the next line in cur, once lineEnd has found it; 0 before
	end   int
	frags []fragment // the start of a line longer than what cur holds
	fragn int        // bytes in frags
	err   error      // the read error that ends the input, once seen

	// window batches a dense stream of lines (see Options.ReadWindow)
	// through win, the read window of r (adapters/internal/readwindow),
	// made at the first read. Zero never waits.
	window time.Duration
	win    readwindow.Reader
	wins   bool // win is made

	// batch tags the lines that the last read completed (see
	// readwindow.Reader.Batch): lines with the same non-zero tag were
	// written within one window, and may go to the editor together.
	batch uint64
}

// fragment is part of a long line, in a slab it holds a reference to.
type fragment struct {
	s *slab
	b []byte
}

// next returns the next line with its '\n', and the slab that holds it (to
// recycle; nil for a joined long line). At the end of the input it returns
// what is left of an unterminated last line (possibly nothing) together
// with the read error, io.EOF for a clean end.
func (lr *lineReader) next() ([]byte, *slab, error) {
	for {
		if lr.cur != nil {
			if j := lr.lineEnd(); j > 0 {
				line, sl := lr.handOut(j)
				return line, sl, nil
			}
		}
		lr.scan = lr.end
		if limit := cmp.Or(lr.limit, maxLine); lr.fragn+lr.end-lr.start > limit {
			return nil, nil, fmt.Errorf("reading claude output: line longer than %d bytes", limit)
		}
		if lr.err != nil {
			if lr.fragn+lr.end-lr.start == 0 {
				return nil, nil, lr.err
			}
			line, sl := lr.handOut(lr.end)
			return line, sl, lr.err
		}
		if lr.cur == nil || lr.end == len(lr.cur.buf) {
			lr.newSlab()
		}
		n, err := lr.read(lr.cur.buf[lr.end:])
		lr.end += n
		lr.err = err
	}
}

// read reads once into room, batching a dense stream (see window).
func (lr *lineReader) read(room []byte) (int, error) {
	if !lr.wins {
		lr.win, lr.wins = readwindow.New(lr.r, lr.window), true
	}
	n, err := lr.win.Read(room)
	lr.batch = lr.win.Batch()
	return n, err
}

// buffered reports whether a whole line has been read and not handed out.
func (lr *lineReader) buffered() bool {
	return lr.cur != nil && lr.lineEnd() > 0
}

// lineEnd is the end (past its '\n') of the next whole line in cur, or 0.
// The search is done once per line: next uses what buffered found.
func (lr *lineReader) lineEnd() int {
	if lr.found == 0 {
		if i := bytes.IndexByte(lr.cur.buf[lr.scan:lr.end], '\n'); i >= 0 {
			lr.found = lr.scan + i + 1
		}
	}
	return lr.found
}

// handOut returns the line that ends at cur.buf[j], with a reference to
// the slab that holds it.
func (lr *lineReader) handOut(j int) ([]byte, *slab) {
	tail := lr.cur.buf[lr.start:j:j]
	lr.start, lr.scan, lr.found = j, j, 0
	if len(lr.frags) == 0 {
		lr.cur.refs.Add(1)
		return tail, lr.cur
	}
	line := make([]byte, 0, lr.fragn+len(tail))
	for _, f := range lr.frags {
		line = append(line, f.b...)
		lr.pool.unref(f.s)
	}
	clear(lr.frags)
	lr.frags, lr.fragn = lr.frags[:0], 0
	return append(line, tail...), nil
}

// newSlab continues in a fresh slab; the unfinished line at the end of the
// full one is copied over when short, or kept as a fragment.
func (lr *lineReader) newSlab() {
	var part []byte
	if lr.cur != nil {
		part = lr.cur.buf[lr.start:lr.end:lr.end]
	}
	if len(part) > slabSize/4 {
		lr.cur.refs.Add(1)
		lr.frags = append(lr.frags, fragment{lr.cur, part})
		lr.fragn += len(part)
		part = nil
	}
	next := lr.pool.get()
	next.refs.Store(1)
	copy(next.buf, part)
	lr.pool.unref(lr.cur)
	lr.cur = next
	lr.start, lr.scan, lr.end = 0, len(part), len(part)
}
