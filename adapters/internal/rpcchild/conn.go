package rpcchild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// DefaultMaxLine bounds one message from the child when Options.MaxLine is
// 0: a thread's history or a prompt's images travel in one line.
const DefaultMaxLine = jsonrpc.DefaultMaxMessageSize

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
	// NoVersion leaves the "jsonrpc":"2.0" member out of what is written;
	// Codex's app-server protocol has none.
	NoVersion bool
	// Handle receives the child's requests and notifications, one at a
	// time, in the order the child wrote them, on the reader goroutine.
	// req and everything it holds alias the read buffer and are valid
	// only until Handle returns. Handle must not wait for the child: the
	// answer it waits for could not be read meanwhile. A request is
	// answered with Reply or ReplyError.
	Handle func(req *jsonrpc.Request)
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
// owner's, runs Run; every other method may be called from any goroutine.
type Conn struct {
	rpc  *jsonrpc.Conn
	name string
	run  chan struct{} // closed by Run
}

// New returns a Conn that writes to w (the child's stdin) and reads the
// child's output r once the owner runs Run.
func New(r io.Reader, w io.Writer, o Options) *Conn {
	c := &Conn{name: o.Name, run: make(chan struct{})}
	r = &gate{r: r, open: c.run}
	handle := o.Handle
	if handle == nil {
		handle = func(*jsonrpc.Request) {}
	}
	var trace func(bool, []byte)
	if o.Trace != nil {
		trace = func(in bool, line []byte) { o.Trace(!in, line) }
	}
	stream := jsonrpc.NewLines(r, w, jsonrpc.StdioOptions{MaxMessageSize: o.MaxLine, Trace: trace})
	c.rpc = jsonrpc.NewConn(context.Background(), stream, jsonrpc.Options{
		Route:           handle,
		OnEnd:           func(readErr error) error { return c.ended(o.Ended, readErr) },
		OmitVersion:     o.NoVersion,
		OnInternalError: func(err error) { logSkipped(o.Logger, err) },
	})
	return c
}

// ended is why the child's output ended: the owner's account, or one that
// names the child.
func (c *Conn) ended(owner func(error) error, readErr error) error {
	if owner != nil {
		if err := owner(readErr); err != nil {
			return err
		}
	}
	if errors.Is(readErr, io.EOF) {
		return fmt.Errorf("%s closed its output", c.name)
	}
	return fmt.Errorf("reading %s: %w", c.name, readErr)
}

// logSkipped logs what the engine reports: a line skipped (not JSON-RPC,
// or too long) as a warning, anything else (an answer to no pending
// call) at debug.
func logSkipped(log zerolog.Logger, err error) {
	var tooLarge *jsonrpc.TooLargeError
	if errors.Is(err, jsonrpc.ErrParse) || errors.Is(err, jsonrpc.ErrInvalidRequest) || errors.As(err, &tooLarge) {
		log.Warn().Err(err).Msg("reading the child")
		return
	}
	log.Debug().Err(err).Msg("reading the child")
}

// Run lets the reading begin and waits until the child's output has ended
// and every pending call has failed; then it writes what is still queued
// (if the child reads it) and releases the connection.
func (c *Conn) Run() {
	close(c.run)
	<-c.rpc.Done()
	_ = c.rpc.Close()
}

// gate holds the first read of the child's output until Run: nothing
// reaches Handle before the owner has stored the Conn that New returned.
type gate struct {
	r    io.Reader
	open <-chan struct{}
}

func (g *gate) Read(b []byte) (int, error) {
	<-g.open
	return g.r.Read(b)
}

// Done is closed when the child's output has ended and every pending call
// has failed.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Done() }

// Err is why the child's output ended (see Options.Ended); nil while it is
// read.
func (c *Conn) Err() error { return c.rpc.Err() }

// Pending is a request sent to the child whose answer is awaited.
type Pending struct {
	p     *jsonrpc.Pending
	child string
}

// Start sends a request and returns without waiting for its answer. Nil
// or empty raw params are left out.
func (c *Conn) Start(method string, params any) (*Pending, error) {
	p, err := c.rpc.Start(context.Background(), method, omitEmpty(params))
	if err != nil {
		return nil, err
	}
	return &Pending{p: p, child: c.name}, nil
}

// ID is the request's id.
func (p *Pending) ID() jsonrpc.ID { return p.p.ID() }

// Wait waits for the answer: its result, an *Error when the child answered
// with one, or the Conn's Err when the child's output ended first. When
// ctx ends first, it returns ctx's cause and the request stays pending.
func (p *Pending) Wait(ctx context.Context) (json.RawMessage, error) {
	var res json.RawMessage
	err := p.p.Wait(ctx, &res)
	return res, p.named(err)
}

// Await is Wait, except that when ctx ends first the request is given up
// and the child sent "$/cancel_request" for it.
func (p *Pending) Await(ctx context.Context) (json.RawMessage, error) {
	var res json.RawMessage
	err := p.p.Await(ctx, &res)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
		return nil, context.Cause(ctx)
	}
	return res, p.named(err)
}

// Forget gives up the request without telling the child: its answer, if it
// comes, is dropped.
func (p *Pending) Forget() { p.p.Forget() }

// named converts an error answer to an *Error naming the child.
func (p *Pending) named(err error) error {
	var we *jsonrpc.Error
	if err == nil || !errors.As(err, &we) {
		return err
	}
	return &Error{Code: int(we.Code), Message: we.Message, Data: we.Data, child: p.child}
}

// Call sends a request and waits for its answer (see Pending.Wait). When
// ctx ends first the request is forgotten and ctx's cause returned;
// telling the child (a cancel notification) is the caller's business.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := c.Start(method, params)
	if err != nil {
		return nil, err
	}
	res, err := p.Wait(ctx)
	if err != nil && ctx.Err() != nil && err == context.Cause(ctx) {
		p.Forget()
	}
	return res, err
}

// Notify sends a notification; nil or empty raw params are left out.
func (c *Conn) Notify(method string, params any) error {
	return c.rpc.Notify(context.Background(), method, omitEmpty(params))
}

// omitEmpty makes empty raw params absent, as nil params are.
func omitEmpty(params any) any {
	if raw, ok := params.(json.RawMessage); ok && len(raw) == 0 {
		return nil
	}
	return params
}

// Reply answers the child's request id with result (JSON null when nil).
func (c *Conn) Reply(id jsonrpc.ID, result any) error {
	return c.rpc.Respond(id, result, nil)
}

// ReplyError answers the child's request id with an error.
func (c *Conn) ReplyError(id jsonrpc.ID, e *Error) error {
	return c.rpc.Respond(id, nil, &jsonrpc.Error{Code: int64(e.Code), Message: e.Message, Data: e.Data})
}
