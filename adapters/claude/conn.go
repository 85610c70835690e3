package claude

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// maxLine bounds one stdout line. Tool results and the initialize answer can
// be large, and prompts carry base64 images, so the limit is generous.
const maxLine = 64 << 20

// errClosed is reported for host requests still waiting when the CLI's stdout
// ends.
var errClosed = errors.New("claude closed its output")

// event is one stdout line the turn owner has to look at. Control responses,
// cancel requests and keep-alives never become events: the reader settles them
// itself so that a turn blocked on the editor cannot stall them.
type event struct {
	typ, subtype string
	// line is the whole JSON line. It aliases a read buffer that is reused
	// once the event is recycled: copy what must outlive handling the event
	// (gjson.GetBytes and ParseBytes copy).
	line []byte
	slab *slab // holds line; nil when line is not from the reader
	// own says that line is a buffer of its own that nothing writes to
	// again: a long line the reader joined, or one a dialect rewrote. It
	// is parsed in place (root), not copied.
	own bool
	// reqID and abort are set for control requests from the CLI; abort is
	// done when the CLI withdraws the request (control_cancel_request).
	reqID string
	abort context.Context
	// exit is set on the last event of a process: its stdout ended and err
	// is what Wait returned.
	exit bool
	err  error
	// batch is the lineReader's tag of the line: lines with the same
	// non-zero tag were all written before one ReadNow (within one read
	// window, unless the reader was held up).
	batch uint64
	// delta is set (delta.ok) on a text or thinking delta read by the
	// one-pass scanDelta.
	delta streamDelta
}

// reply is the CLI's answer to a host control request.
type reply struct {
	body    []byte // response.response (success)
	errText string // response.error (error)
	code    string // response.error_code
}

// Bounds of the event queue. While this much is queued the reader stops
// reading stdout, so a CLI that writes faster than the editor takes updates
// blocks on its stdout pipe instead of filling the bridge's memory. A single
// line larger than queueBytes is still queued, alone.
const (
	queueEvents = 256
	queueBytes  = 1 << 20
)

// conn speaks stream-JSON with one CLI process: it writes NDJSON to its stdin
// and turns its stdout into events. One reader goroutine per conn owns
// stdout; whoever runs the current turn consumes the events.
//
// The event queue is bounded (queueEvents, queueBytes): the reader waits for
// room, which is the backpressure that keeps a long turn's memory flat. That
// wait must never stall what only the reader can deliver, so the reader
// does not wait while
//   - a host request awaits the CLI's answer (pending is not empty): control
//     responses are settled by the reader, off the queue, and may sit behind
//     any number of events (a set_permission_mode sent while the turn is
//     blocked on the editor);
//   - someone holds the conn (hold): the turn waits on the editor for a CLI
//     request that the CLI may withdraw (control_cancel_request, also
//     settled by the reader);
//   - the conn is released (release): nobody will consume more events, and
//     whoever stops the process waits for the reader to reach EOF. A full
//     queue then drops events instead.
//
// In those states the queue may grow past its bounds, for as long as the
// state lasts.
type conn struct {
	p     proc.Process
	log   zerolog.Logger
	trace func(toAgent bool, line []byte)
	// window is the reader's ReadWindow (Options).
	window time.Duration
	// in and out rewrite lines read from and written to the CLI into and
	// out of Claude Code's message names (Dialect.Messages); nil for a
	// CLI that uses them. Set before start.
	in, out func([]byte) []byte

	wmu sync.Mutex // serialises writes to stdin

	mu       sync.Mutex
	nextID   int                           // guarded by mu
	pending  map[string]chan reply         // host requests awaiting an answer; guarded by mu
	inbound  map[string]context.CancelFunc // CLI requests not yet answered; guarded by mu
	queue    ring                          // guarded by mu
	qbytes   int                           // bytes of the lines in queue; guarded by mu
	holds    int                           // hold calls not yet undone; guarded by mu
	released bool                          // no more events will be consumed; guarded by mu
	dropped  int                           // events dropped after release; guarded by mu
	room     sync.Cond                     // on mu: the reader may no longer have to wait
	waiting  bool                          // the reader waits in push; guarded by mu
	states   bool                          // a session_state_changed was seen; guarded by mu
	ended    bool                          // stdout has ended: no new pending requests; guarded by mu
	midBatch bool                          // more lines of the reader's current batch read follow at once; guarded by mu

	slabs  slabs         // the reader's free read buffers
	notify chan struct{} // 1-buffered: the queue grew
	done   chan struct{} // closed when the reader has exited
	err    error         // why the reader exited; written before done closes
}

func newConn(p proc.Process, log zerolog.Logger, trace func(bool, []byte), window time.Duration) *conn {
	c := &conn{
		p:       p,
		window:  window,
		log:     log,
		trace:   trace,
		pending: map[string]chan reply{},
		inbound: map[string]context.CancelFunc{},
		notify:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	c.room.L = &c.mu
	return c
}

// start runs the reader; wg lets the owner wait for it.
func (c *conn) start(wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.read()
	}()
}

// read is the reader goroutine: it parses stdout until EOF, then reaps the
// process and queues the exit event.
func (c *conn) read() {
	lr := lineReader{r: c.p.Stdout(), pool: &c.slabs, window: c.window}
	var rerr error
	inBatch := false
	for {
		line, sl, err := lr.next()
		// more: lines of the same batch read follow, already in memory.
		more := lr.batch != 0 && lr.buffered()
		if len(line) > 0 {
			c.dispatch(line, sl, lr.batch, more)
		}
		if inBatch && !more {
			c.batchDone()
		}
		inBatch = more
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	if rerr != nil {
		// Keep the pipe drained so the child can exit.
		_, _ = io.Copy(io.Discard, c.p.Stdout())
	}
	werr := c.p.Wait()
	if werr == nil {
		werr = rerr
	}
	c.mu.Lock()
	c.err = werr
	c.ended = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	for id, cancel := range c.inbound {
		cancel()
		delete(c.inbound, id)
	}
	// The exit event is queued whatever the bounds: the turn waits for it.
	c.queue.push(event{exit: true, err: werr})
	c.midBatch = false
	if c.dropped > 0 {
		c.log.Debug().Int("events", c.dropped).Msg("dropped output nobody was going to read")
	}
	c.mu.Unlock()
	c.signal()
	close(c.done)
}

// root parses the event's line for its handlers. gjson.ParseBytes copies
// the line, so that what a handler keeps of it does not change when its
// read buffer is reused. A line in a buffer of its own is parsed in place:
// the frames that end a long reply (the assistant message and the result,
// each repeating all of it) are not held twice.
func (ev *event) root() gjson.Result {
	if ev.own && len(ev.line) > 0 {
		return gjson.Parse(unsafe.String(unsafe.SliceData(ev.line), len(ev.line)))
	}
	return gjson.ParseBytes(ev.line)
}

// dispatch classifies one stdout line, held by sl (nil: a buffer of its
// own, never reused), of the given batch (see lineReader.batch); more says
// whether more lines of the batch follow. A line that does not become an
// event is recycled at once.
func (c *conn) dispatch(line []byte, sl *slab, batch uint64, more bool) {
	queued := false
	defer func() {
		if !queued {
			c.slabs.unref(sl)
		}
	}()
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if c.trace != nil {
		c.trace(false, line)
	}
	if c.in != nil {
		line = c.in(line)
	}
	if d := scanDelta(line); d.ok {
		queued = c.push(event{typ: "stream_event", line: line, slab: sl, batch: batch, delta: d}, more)
		return
	}
	if !validJSON(line) {
		c.log.Debug().Bytes("line", line).Msg("skipping non-JSON output line")
		return
	}
	ev := event{typ: gjson.GetBytes(line, "type").String(), line: line, slab: sl, batch: batch, own: sl == nil}
	if ev.typ != "stream_event" { // the line of every delta has none
		ev.subtype = gjson.GetBytes(line, "subtype").String()
	}
	switch ev.typ {
	case "control_response":
		c.settle(line)
		return
	case "control_cancel_request":
		c.withdraw(gjson.GetBytes(line, "request_id").String())
		return
	case "keep_alive", "":
		return
	case "control_request":
		ev.reqID = gjson.GetBytes(line, "request_id").String()
		ev.subtype = gjson.GetBytes(line, "request.subtype").String()
		ctx, cancel := context.WithCancel(context.Background())
		ev.abort = ctx
		c.mu.Lock()
		c.inbound[ev.reqID] = cancel
		c.mu.Unlock()
	case "system":
		if ev.subtype == "session_state_changed" {
			c.mu.Lock()
			c.states = true
			c.mu.Unlock()
		}
	}
	queued = c.push(ev, more)
}

// push queues ev for the turn, first waiting for room when nothing needs
// the reader to run ahead (see conn). It reports false when it dropped ev.
// While more lines of ev's batch follow (more), the turn is not woken: it
// takes the batch whole, so that its deltas merge (translator.mergeDelta).
func (c *conn) push(ev event, more bool) bool {
	c.mu.Lock()
	for c.full() && !c.released && c.holds == 0 && len(c.pending) == 0 {
		c.waiting = true
		c.room.Wait()
	}
	c.waiting = false
	c.midBatch = more
	if c.released && c.full() {
		c.dropped++
		c.mu.Unlock()
		return false
	}
	c.queue.push(ev)
	c.qbytes += len(ev.line)
	c.mu.Unlock()
	if !more {
		c.signal()
	}
	return true
}

// batchDone ends the reader's batch when its last line was not queued.
func (c *conn) batchDone() {
	c.mu.Lock()
	mid := c.midBatch
	c.midBatch = false
	c.mu.Unlock()
	if mid {
		c.signal()
	}
}

// drain hands the queued events to handle until the queue is empty or
// done reports true, merging the deltas of a batch read in tr
// (translator.mergeDelta): what tr merged goes out before any other event,
// and once the queue is empty, unless more lines of the batch are about to
// be queued (the next drain takes them).
func (c *conn) drain(tr *translator, handle func(event), done func() bool) {
	for !done() {
		ev, ok := c.pop()
		if !ok {
			c.mu.Lock()
			mid := c.midBatch
			c.mu.Unlock()
			if !mid {
				tr.flush()
			}
			return
		}
		if !tr.mergeDelta(ev) {
			tr.flush()
			handle(ev)
		}
		c.recycle(ev)
	}
}

// full reports whether the queue is at one of its bounds. Callers hold mu.
func (c *conn) full() bool {
	return c.queue.n >= queueEvents || (c.queue.n > 0 && c.qbytes >= queueBytes)
}

// hold lets the reader run past the queue's bounds until the returned func
// is called. The turn holds the conn while it waits on the editor for a CLI
// request, so that the CLI's withdrawal of that request gets through.
func (c *conn) hold() (undo func()) {
	c.mu.Lock()
	c.holds++
	c.room.Signal()
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.holds--
		c.mu.Unlock()
	}
}

// release tells the reader that no more events will be consumed: it must
// not wait for room any more (the process is being stopped, and its stopper
// waits for the reader). Further events are queued while there is room and
// dropped after that; the exit event is always queued.
func (c *conn) release() {
	c.mu.Lock()
	c.released = true
	c.room.Signal()
	c.mu.Unlock()
}

func (c *conn) signal() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// settle hands a control_response to the request waiting for it. Answers to
// ids we did not send (the CLI echoes the host's own answers with
// --replay-user-messages) are ignored.
func (c *conn) settle(line []byte) {
	r := gjson.GetBytes(line, "response")
	id := r.Get("request_id").String()
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		c.log.Debug().Str("request_id", id).Msg("ignoring control_response for an unknown request")
		return
	}
	rep := reply{}
	if r.Get("subtype").String() == "error" {
		rep.errText = r.Get("error").String()
		rep.code = r.Get("error_code").String()
		if rep.errText == "" {
			rep.errText = "request failed"
		}
	} else {
		rep.body = []byte(r.Get("response").Raw)
	}
	ch <- rep
}

// withdraw cancels the context of a CLI request the CLI no longer wants
// answered.
func (c *conn) withdraw(id string) {
	c.mu.Lock()
	cancel := c.inbound[id]
	delete(c.inbound, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answered forgets a CLI request once the host has answered it. It reports
// false when the CLI withdrew it first, in which case no answer may be sent.
func (c *conn) answered(id string) bool {
	c.mu.Lock()
	cancel, ok := c.inbound[id]
	delete(c.inbound, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return ok
}

// recycle tells the conn that ev has been handled: its line may be reused.
func (c *conn) recycle(ev event) {
	c.slabs.unref(ev.slab)
}

// pop removes and returns the oldest queued event. Recycle it once handled.
func (c *conn) pop() (event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ev, ok := c.queue.pop()
	if ok {
		c.qbytes -= len(ev.line)
		// Wake a waiting reader only once half the queue is free, so that it
		// refills the queue in a batch rather than a line per pop.
		if c.waiting && c.queue.n <= queueEvents/2 && c.qbytes <= queueBytes/2 {
			c.room.Signal()
		}
	}
	return ev, ok
}

// sawStates reports whether this process emits session_state_changed.
func (c *conn) sawStates() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.states
}

func (c *conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exitError is why the process went away; only valid once done.
func (c *conn) exitError() error {
	<-c.done
	if c.err != nil {
		return c.err
	}
	return errClosed
}
