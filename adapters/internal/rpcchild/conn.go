package rpcchild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/rs/zerolog"
)

// DefaultMaxLine bounds one message from the child when Options.MaxLine is
// 0: a thread's history or a prompt's images travel in one line.
const DefaultMaxLine = 64 << 20

// Message is one JSON-RPC message from the child, decoded only as far as
// routing needs: a response (ID and Result or Error), a request (ID and
// Method) or a notification (Method). Params and Result are the child's
// JSON, compacted.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// Clone returns a copy of m that shares no memory with the read buffer.
func (m *Message) Clone() *Message {
	c := &Message{ID: clone(m.ID), Method: m.Method, Params: clone(m.Params), Result: clone(m.Result)}
	if m.Error != nil {
		e := *m.Error
		e.Data = clone(e.Data)
		c.Error = &e
	}
	return c
}

func clone(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// Error is a JSON-RPC error object: one the child answered with, or one an
// adapter answers the child's request with.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	child string // names the child that answered, in Error()
}

func (e *Error) Error() string {
	if e.child == "" {
		return fmt.Sprintf("%s (%d)", e.Message, e.Code)
	}
	return fmt.Sprintf("%s: %s (%d)", e.child, e.Message, e.Code)
}

// Options configure a Conn. Only Name is needed.
type Options struct {
	// Name names the child in errors ("codex app-server", "gemini").
	Name string
	// Version is written as the "jsonrpc" member of every message when
	// set ("2.0"); Codex's app-server protocol leaves it out.
	Version string
	// Handle receives the child's requests and notifications, one at a
	// time, in the order the child wrote them, on the reader goroutine.
	// m and everything it holds alias the read buffer and are valid only
	// until Handle returns (Clone keeps them). Handle must not wait for
	// the child: the answer it waits for could not be read meanwhile.
	Handle func(m *Message)
	// Ended maps the end of the child's output (io.EOF or the read error)
	// to the error every pending and later call fails with; it runs once,
	// on the reader goroutine, and may wait for the child's exit status.
	// The default names the child.
	Ended func(readErr error) error
	// Trace, if set, sees every line written to (true) or read from
	// (false) the child, without its newline, on the writing or reading
	// goroutine.
	Trace func(toChild bool, line []byte)
	// Logger receives the lines skipped; the zero value discards them.
	Logger zerolog.Logger
	// MaxLine bounds one message (default DefaultMaxLine). A longer line
	// is skipped; a pending call it answered fails.
	MaxLine int
}

// Conn is a JSON-RPC client over a child's stdio. One goroutine, the
// owner's, runs Run, which is the only reader; Start, Call, Notify, Reply
// and Write may be called from any goroutine, and each message is written
// with one Write under a lock.
type Conn struct {
	w    io.Writer
	opts Options

	wmu sync.Mutex // serialises writes to w

	// cur is the message being dispatched, kept here so that handing it
	// to Handle costs no allocation per line; used only by Run.
	cur Message

	mu      sync.Mutex
	nextID  int64                                  // guarded by mu
	pending map[int64]func(json.RawMessage, error) // guarded by mu; calls awaiting an answer
	err     error                                  // guarded by mu; why the output ended, set before done closes
	done    chan struct{}                          // closed when Run has failed every pending call
}

// New returns a Conn writing to w (the child's stdin). Nothing is read
// until the owner runs Run on the child's stdout.
func New(w io.Writer, o Options) *Conn {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Handle == nil {
		o.Handle = func(*Message) {}
	}
	return &Conn{w: w, opts: o, pending: make(map[int64]func(json.RawMessage, error)), done: make(chan struct{})}
}

// Done is closed when the child's output has ended and every pending call
// has been failed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the child's output ended (see Options.Ended); nil while it is
// read.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Start sends a request and returns its id. deliver is called exactly once
// with the answer's result (a copy), or with an error: a *Error when the
// child answered with one, the Conn's Err when the child's output ended
// first. It is called on the reader goroutine and must not block. If the
// request cannot be sent, Start returns the error and deliver is never
// called.
func (c *Conn) Start(method string, params any, deliver func(result json.RawMessage, err error)) (int64, error) {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = deliver
	c.mu.Unlock()
	err := c.Write(struct {
		JSONRPC string `json:"jsonrpc,omitempty"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{c.opts.Version, id, method, omitEmpty(params)})
	if err != nil {
		c.Forget(id)
		return 0, fmt.Errorf("writing %s to %s: %w", method, c.opts.Name, err)
	}
	return id, nil
}

// Forget gives up the pending call id: its answer, if it comes, is
// dropped, and its deliver is not called. It reports whether the call was
// still pending.
func (c *Conn) Forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// Call sends a request and waits for its answer (see Start). When ctx ends
// first the call is forgotten and ctx's cause returned; telling the child
// (a cancel notification) is the caller's business.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	type reply struct {
		result json.RawMessage
		err    error
	}
	ch := make(chan reply, 1)
	id, err := c.Start(method, params, func(res json.RawMessage, err error) { ch <- reply{res, err} })
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.Forget(id)
		return nil, context.Cause(ctx)
	}
}

// Notify sends a notification; nil or empty raw params are left out.
func (c *Conn) Notify(method string, params any) error {
	return c.Write(struct {
		JSONRPC string `json:"jsonrpc,omitempty"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{c.opts.Version, method, omitEmpty(params)})
}

// omitEmpty makes empty raw params absent, as nil params are: boxed in
// an interface they would be written as null, which some agents refuse.
func omitEmpty(params any) any {
	if raw, ok := params.(json.RawMessage); ok && len(raw) == 0 {
		return nil
	}
	return params
}

// Reply answers the child's request id with result (JSON null when nil).
func (c *Conn) Reply(id json.RawMessage, result any) error {
	return c.Write(struct {
		JSONRPC string          `json:"jsonrpc,omitempty"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{c.opts.Version, id, result})
}

// ReplyError answers the child's request id with an error.
func (c *Conn) ReplyError(id json.RawMessage, e *Error) error {
	return c.Write(struct {
		JSONRPC string          `json:"jsonrpc,omitempty"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}{c.opts.Version, id, e})
}

// Write sends v, encoded as JSON, as one line.
func (c *Conn) Write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.opts.Trace != nil {
		c.opts.Trace(true, b[:len(b)-1])
	}
	_, err = c.w.Write(b)
	return err
}

// retire hands an answer to the call waiting for it.
func (c *Conn) retire(m *Message) {
	id, perr := strconv.ParseInt(string(m.ID), 10, 64)
	c.mu.Lock()
	deliver, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if perr != nil || !ok {
		c.opts.Logger.Debug().RawJSON("id", m.ID).Msg("answer to no pending request ignored")
		return
	}
	if m.Error != nil {
		e := *m.Error
		e.Data = clone(e.Data)
		e.child = c.opts.Name
		deliver(nil, &e)
		return
	}
	deliver(clone(m.Result), nil)
}

// end records why the output ended and fails every pending call with it.
func (c *Conn) end(readErr error) {
	var err error
	if c.opts.Ended != nil {
		err = c.opts.Ended(readErr)
	}
	switch {
	case err != nil:
	case errors.Is(readErr, io.EOF):
		err = fmt.Errorf("%s closed its output", c.opts.Name)
	default:
		err = fmt.Errorf("reading %s: %w", c.opts.Name, readErr)
	}
	c.mu.Lock()
	c.err = err
	pending := c.pending
	c.pending = map[int64]func(json.RawMessage, error){}
	c.mu.Unlock()
	for _, deliver := range pending {
		deliver(nil, err)
	}
	close(c.done)
}
