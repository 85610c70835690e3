package jsonrpc

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Bounds of the queue between the goroutines that send messages and the
// Conn's writer goroutine. When the peer reads slowly, the writer blocks in
// the stream's Write, the queue fills up and senders wait for room: memory
// stays bounded and a fast producer is paced by the peer, as it would be by
// a synchronous write. A message larger than maxQueuedBytes is accepted when
// the queue is empty, so it waits for no more than the batch being written.
// The bounds are small on purpose: a 16 KiB batch is some sixty streamed
// updates per system call, larger queues did not raise the throughput of a
// streamed turn measurably, and whatever they hold counts twice towards the
// heap the garbage collector lets grow.
const (
	maxQueuedMessages = 256
	maxQueuedBytes    = 16 << 10
	// maxKeptBuffer bounds the capacity of a batch buffer kept for reuse: a
	// buffer that one huge message grew is let go.
	maxKeptBuffer = 2 * maxQueuedBytes
)

// closeFlushTimeout bounds how long Close waits for queued messages to be
// written: a peer that stopped reading must not hold up shutdown.
const closeFlushTimeout = 5 * time.Second

// outbox is the bounded FIFO of encoded messages between senders and the
// writer goroutine. Messages are copied in back to back; the writer swaps
// the whole queue for an empty buffer and writes it as one batch, so a burst
// leaves in few system calls, while a lone message is written as soon as
// the writer wakes. Order is the order in which push took the lock: an
// answer can never overtake a notification queued before it.
type outbox struct {
	mu       sync.Mutex
	buf      []byte        // queued messages back to back, oldest first; guarded by mu
	lens     []int         // the length of each queued message; guarded by mu
	busy     bool          // the writer is writing a batch it took; guarded by mu
	sleeping bool          // the writer waits on wake; guarded by mu
	draining bool          // err is errClosed: queued messages are still written; guarded by mu
	err      error         // set once messages are refused; guarded by mu
	space    chan struct{} // made by a waiting sender, closed when the writer takes a batch; guarded by mu
	idle     chan struct{} // made by a flush waiter, closed when nothing is queued or being written; guarded by mu
	wake     chan struct{} // 1-buffered; a token is sent only when sleeping was set
	done     chan struct{} // closed when the writer goroutine has returned
}

func newOutbox() outbox {
	return outbox{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push copies msg into the queue, waiting while the queue is full. It
// returns the error the queue was stopped with, or ctx's cause if ctx ends
// before the message is queued.
func (o *outbox) push(ctx context.Context, msg []byte) error {
	for {
		o.mu.Lock()
		if o.err != nil {
			err := o.err
			o.mu.Unlock()
			return err
		}
		if ctx.Err() != nil {
			o.mu.Unlock()
			return context.Cause(ctx)
		}
		if n := len(o.lens); n == 0 || n < maxQueuedMessages && len(o.buf)+len(msg) <= maxQueuedBytes {
			o.buf = append(o.buf, msg...)
			o.lens = append(o.lens, len(msg))
			o.wakeLocked()
			o.mu.Unlock()
			return nil
		}
		if o.space == nil {
			o.space = make(chan struct{})
		}
		space := o.space
		o.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// wakeLocked wakes the writer if it sleeps. o.mu is held.
func (o *outbox) wakeLocked() {
	if o.sleeping {
		o.sleeping = false
		o.wake <- struct{}{} // the only token: sleeping was set since the last
	}
}

// take waits for queued messages and swaps them for buf and lens (empty,
// kept from an earlier batch). ok is false when the writer must return: the
// queue was closed and is drained, or it was stopped.
func (o *outbox) take(buf []byte, lens []int) (batch []byte, batchLens []int, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(o.lens) == 0 {
		if o.err != nil {
			return nil, nil, false
		}
		o.sleeping = true
		o.mu.Unlock()
		<-o.wake
		o.mu.Lock()
	}
	batch, batchLens = o.buf, o.lens
	o.buf, o.lens = buf, lens
	o.busy = true
	if o.space != nil {
		close(o.space)
		o.space = nil
	}
	return batch, batchLens, true
}

// written records that the batch taken last has been written; a non-nil
// failed stops the queue with that error, dropping what is queued.
func (o *outbox) written(failed error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.busy = false
	if failed != nil {
		o.stopLocked(failed)
	}
	o.signalIdleLocked()
}

// close refuses new messages with err; what is queued is still written,
// after which the writer returns.
func (o *outbox) close(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err, o.draining = err, true
		o.wakeLocked()
	}
}

// abort drops what is still queued; the writer returns after the batch it
// is writing, if any.
func (o *outbox) abort(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopLocked(err)
	o.signalIdleLocked()
}

// stopLocked refuses new messages with err (unless already refused for
// another reason than Close) and drops the queue. o.mu is held.
func (o *outbox) stopLocked(err error) {
	if o.err == nil || o.draining {
		o.err, o.draining = err, false
	}
	o.buf, o.lens = o.buf[:0], o.lens[:0]
	if o.space != nil {
		close(o.space) // waiting senders see err
		o.space = nil
	}
	o.wakeLocked()
}

func (o *outbox) signalIdleLocked() {
	if o.idle != nil && len(o.lens) == 0 && !o.busy {
		close(o.idle)
		o.idle = nil
	}
}

// flushed waits until nothing is queued or being written, the writer has
// returned, or timeout fires (a nil timeout never does). It reports whether
// the queue was flushed.
func (o *outbox) flushed(timeout <-chan time.Time) bool {
	o.mu.Lock()
	if len(o.lens) == 0 && !o.busy {
		o.mu.Unlock()
		return true
	}
	if o.idle == nil {
		o.idle = make(chan struct{})
	}
	idle := o.idle
	o.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-o.done:
		return true
	case <-timeout:
		return false
	}
}

// batchWriter is implemented by streams that can write several messages with
// one flush (stdio). Other streams get one Write per message.
type batchWriter interface {
	writeBatch(msgs [][]byte) error
}

// writeLoop is the Conn's writer goroutine: it writes queued messages in
// batches until Close drains the queue or a write fails.
func (c *Conn) writeLoop() {
	defer close(c.out.done)
	var (
		buf  []byte
		lens []int
		msgs [][]byte
	)
	for {
		var ok bool
		buf, lens, ok = c.out.take(buf[:0], lens[:0])
		if !ok {
			return
		}
		msgs = msgs[:0]
		off := 0
		for _, n := range lens {
			msgs = append(msgs, buf[off:off+n:off+n])
			off += n
		}
		if err := c.writeBatch(msgs); err != nil {
			c.writeFailed(err)
			return
		}
		c.out.written(nil)
		if cap(buf) > maxKeptBuffer {
			buf = nil
		}
	}
}

func (c *Conn) writeBatch(msgs [][]byte) error {
	if bw, ok := c.stream.(batchWriter); ok {
		return bw.writeBatch(msgs)
	}
	for _, msg := range msgs {
		// The messages are already queued: only closing the stream may
		// stop their writing.
		if err := c.stream.Write(context.Background(), msg); err != nil {
			return err
		}
	}
	return nil
}

// writeFailed stops the queue after a failed write, so that later senders
// get the failure. A failure while the Conn is open breaks it: its context
// is cancelled with the failure as the cause, which cancels every in-flight
// request and ends the read loop. The queue is stopped first, so that no
// send can succeed once the Conn is seen broken.
func (c *Conn) writeFailed(err error) {
	if c.ctx.Err() != nil {
		c.out.written(err) // closing: nothing is left to break
		return
	}
	broken := fmt.Errorf("connection broken: %w", err)
	c.out.written(broken)
	c.report(broken)
	c.cancel(broken)
}
