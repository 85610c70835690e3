package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// MethodCancelRequest is the notification either side sends to cancel one of
// its outstanding requests (ACP, stable since schema v1.17). A Conn handles
// it itself when it arrives and sends it when an outgoing Call's ctx ends.
const MethodCancelRequest = "$/cancel_request"

// Handler answers one incoming request. For a call, the result is marshalled
// with encoding/json (a json.RawMessage passes through) and a non-nil error
// becomes the error response: an *Error passes through; an error with a
// method RPCError() (code int64, message string, data any) (how acp.Error
// crosses without an import) is converted; context.Canceled becomes -32800
// "Request cancelled"; anything else is -32603 with err.Error(). Handlers
// return ErrMethodNotFound for methods they do not know. For a notification
// the result is ignored and an error goes to Options.OnInternalError.
//
// ctx is cancelled, with cause ErrRequestCancelled, when the peer sends
// "$/cancel_request" for the call, and with the Conn's cause when it breaks
// or closes. The handler must still return; its answer is still written.
type Handler func(ctx context.Context, req *Request) (result any, err error)

// Options configures a Conn. The zero value is usable: every method is then
// answered with ErrMethodNotFound.
type Options struct {
	// Handler answers incoming requests.
	Handler Handler
	// Preempt runs inline in the read loop before a request is queued; it
	// must not block. Returning true means the request was handled: a
	// notification goes no further, and a call is answered with a null
	// result. Use it for cancellation ("session/cancel"), which must never
	// wait behind the work it cancels. ctx is the Conn's context.
	Preempt func(ctx context.Context, req *Request) bool
	// Sync reports methods whose calls run in the read loop, in arrival
	// order, before anything after them is read ("initialize"). Their
	// handlers must not make outgoing Calls: the read loop that would
	// deliver the answer is busy running them.
	Sync func(method string) bool
	// OnInternalError receives problems no caller can be told about: a
	// failed notification handler, a handler panic, a response to an
	// unknown id, a broken stream. It may be called from several goroutines
	// at once and must not block.
	OnInternalError func(error)

	// The options below serve a connection to a child process, a program
	// that speaks JSON-RPC on its stdio (a native-ACP agent, `codex
	// app-server`), whose client the Conn is.

	// Route, if set, takes every request and notification the peer sends,
	// in the order the peer wrote them, on the read loop, in place of
	// Handler, Preempt and Sync; "$/cancel_request" is routed like any
	// notification. A client that forwards a child's stream needs this
	// order across requests and notifications together: a notification
	// the child wrote after a request must not overtake it.
	//
	// Route must not block: the answers of the Conn's own calls are read
	// by the loop it runs on. req and everything it holds alias the read
	// buffer and are valid only until Route returns. A call is answered
	// with Respond, from any goroutine, at any time; the Conn keeps no
	// record of it.
	//
	// With Route set, messages are decoded in one pass that keeps params
	// and results as the peer wrote them (compacted), and lines that are
	// not JSON-RPC messages (a CLI's banner on stdout), or over the size
	// limit, are reported to OnInternalError and skipped, never answered;
	// an over-size answer to a pending call fails that call.
	Route func(req *Request)
	// OnEnd, if set, maps why the read loop ended (io.EOF at the end of
	// input) to the error Err reports from then on, which every pending
	// and later outgoing call also fails with, as it is (not wrapped in
	// ErrDisconnected): naming the child and how it exited tells the user
	// more than "peer disconnected". It runs once, on the read loop,
	// before Done is closed, and may wait (for a child's exit status). A
	// nil result keeps the default.
	OnEnd func(readErr error) error
	// OmitVersion leaves the "jsonrpc":"2.0" member out of the messages
	// written, for peers whose protocol has none (Codex's app-server).
	// Messages read are accepted without it only with Route set.
	OmitVersion bool
}

// ErrDisconnected is wrapped by the error of outgoing calls that cannot be
// answered any more because the connection's read loop has ended.
var ErrDisconnected = errors.New("peer disconnected")

// errClosed is the cause the Conn's context is cancelled with by Close.
var errClosed = errors.New("connection closed")

// Conn is a JSON-RPC 2.0 connection over a Stream. It has exactly one read
// loop goroutine, which dispatches incoming messages but runs handler code
// only for Preempt and Sync methods: other calls run each in their own
// goroutine, and notifications run one at a time, in arrival order, on one
// worker goroutine behind an unbounded queue. The read loop therefore never
// waits for a handler, which matters because handlers make outgoing Calls
// whose answers the read loop must deliver.
//
// Writes are pipelined: Notify, Call and handler answers encode their
// message and queue it, and one writer goroutine writes what is queued, in
// batches, so a sender's encoding and the write system calls run in
// parallel. The queue is FIFO (an answer never overtakes a notification
// queued before it) and bounded (senders wait while the peer reads slowly);
// a lone message is written as soon as the writer wakes, with no timer.
//
// All methods are safe for concurrent use. The owner must call Close, and
// not from a handler: Close waits for handlers to return.
type Conn struct {
	stream  Stream
	opts    Options
	opening string          // opening or openingNoVersion
	ctx     context.Context // cancelled by Close, by a broken stream, or by the parent
	cancel  context.CancelCauseFunc
	done    chan struct{} // closed when the read loop has ended

	nextID atomic.Int64

	mu        sync.Mutex
	pending   map[ID]chan *Response          // outgoing calls awaiting an answer; guarded by mu
	abandoned map[ID]struct{}                // outgoing calls given up on; guarded by mu
	inflight  map[ID]context.CancelCauseFunc // incoming calls being handled; guarded by mu
	ended     bool                           // the read loop has ended; guarded by mu
	err       error                          // why it ended; guarded by mu

	// thenGate is a lock (a 1-buffered channel, so that waiting on it is
	// durable blocking under synctest). respond holds it from queuing an
	// answer made with Then until its after func has returned; the read
	// loop passes through it before it handles a message. So nothing the
	// peer sends once it has that answer is handled before after has run.
	thenGate chan struct{}

	// cur is the request handed to Route last, reused so that routing a
	// message costs no allocation, and methods interns the method names
	// it carries; both are used only by the read loop.
	cur     Request
	methods map[string]string

	queue   notificationQueue
	out     outbox    // messages waiting for the writer goroutine
	scratch sync.Pool // *[]byte encoding buffers

	handlers  sync.WaitGroup // call goroutines and the notification worker
	bg        sync.WaitGroup // "$/cancel_request" senders; Add only while !ended
	closeOnce sync.Once
	closeErr  error
}

// NewConn starts serving s and returns the connection. Handler contexts
// derive from ctx; cancelling ctx ends the connection like Close, except
// that Err then reports the cause.
func NewConn(ctx context.Context, s Stream, opts Options) *Conn {
	if opts.Handler == nil {
		opts.Handler = func(context.Context, *Request) (any, error) { return nil, ErrMethodNotFound }
	}
	c := &Conn{
		stream:    s,
		opts:      opts,
		done:      make(chan struct{}),
		pending:   make(map[ID]chan *Response),
		abandoned: make(map[ID]struct{}),
		inflight:  make(map[ID]context.CancelCauseFunc),
		queue:     newNotificationQueue(),
		out:       newOutbox(),
		thenGate:  make(chan struct{}, 1),
		opening:   opening,
	}
	if opts.OmitVersion {
		c.opening = openingNoVersion
	}
	c.scratch.New = func() any { return new([]byte) }
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.handlers.Add(1)
	go c.notificationWorker()
	go c.writeLoop()
	go c.readLoop()
	return c
}

// Done returns a channel closed when the read loop has ended: end of input,
// a broken stream, Close, or the parent context.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the read loop ended: nil while it runs, after a clean end
// of input and after Close; otherwise the stream error or the cause of the
// cancellation. With Options.OnEnd, it is what OnEnd returned.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Wait waits until the read loop has ended, every in-flight handler has
// returned and had its answer queued, and everything queued so far has been
// written (or dropped by a failed write), then returns Err. An end of input
// cancels nothing: handlers finish their work unless the owner closes.
func (c *Conn) Wait() error {
	<-c.done
	c.handlers.Wait()
	c.bg.Wait()
	c.out.flushed(nil)
	return c.Err()
}

// Close cancels every handler's context, writes what is already queued
// (waiting at most closeFlushTimeout for a peer that does not read), closes
// the stream, waits for the writer goroutine to return and then waits as
// Wait does. Messages sent after Close has begun are refused. It is
// idempotent and returns the stream's Close error.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.cancel(errClosed)
		c.out.close(errClosed)
		timeout := time.NewTimer(closeFlushTimeout)
		select {
		case <-c.out.done:
		case <-timeout.C:
			c.out.abort(errClosed)
		}
		timeout.Stop()
		c.closeErr = c.stream.Close()
		<-c.out.done // closing the stream ends a write in progress
	})
	_ = c.Wait()
	return c.closeErr
}

// readLoop is the only reader of the stream.
func (c *Conn) readLoop() {
	for {
		data, err := c.stream.Read(c.ctx)
		if c.opts.Route == nil { // only a Handler's answer can carry Then
			c.thenGate <- struct{}{}
			<-c.thenGate
		}
		if err == nil {
			if c.opts.Route != nil {
				c.routeMessage(data)
			} else {
				c.handleMessage(data)
			}
			continue
		}
		var tooLarge *TooLargeError
		switch {
		case errors.As(err, &tooLarge):
			c.refuseTooLarge(tooLarge)
		case errors.Is(err, ErrParse) && c.opts.Route != nil:
			c.report(fmt.Errorf("skipping a message: %w", err))
		case errors.Is(err, ErrParse):
			c.replyError(ID{}, toWireError(err))
		default:
			c.finish(err)
			return
		}
	}
}

// refuseTooLarge answers a message over the size limit, with its id when
// its first bytes named one: a request the sender waits for gets its answer.
// Otherwise the id is null, as for a parse error: a notification cannot be
// told from a request whose id comes after the first bytes. A response
// is not answered; the call it answers fails instead.
func (c *Conn) refuseTooLarge(e *TooLargeError) {
	wire := &Error{Code: ErrInvalidRequest.Code, Message: e.Error()}
	if !e.response && c.opts.Route != nil {
		c.report(fmt.Errorf("skipping a message: %w", e))
		return
	}
	if !e.response {
		c.replyError(e.ID, wire)
		return
	}
	c.report(fmt.Errorf("dropping response to request %v: %w", e.ID, e))
	if e.ID.IsValid() {
		c.retire(&Response{ID: e.ID, Error: wire})
	}
}

// finish records why the read loop ended, fails pending calls and lets the
// notification worker drain and stop.
func (c *Conn) finish(readErr error) {
	var err error
	switch cause := context.Cause(c.ctx); {
	case c.ctx.Err() != nil && cause != errClosed:
		err = cause
	case c.ctx.Err() == nil && !errors.Is(readErr, io.EOF):
		err = fmt.Errorf("reading message: %w", readErr)
	}
	if c.opts.OnEnd != nil {
		if e := c.opts.OnEnd(readErr); e != nil {
			err = e
		}
	}
	c.mu.Lock()
	c.ended = true
	c.err = err
	c.pending = nil // Call sees done and reports ErrDisconnected
	c.mu.Unlock()
	c.queue.close()
	close(c.done)
}

// report passes err to OnInternalError, if set.
func (c *Conn) report(err error) {
	if c.opts.OnInternalError != nil {
		c.opts.OnInternalError(err)
	}
}
