package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// frame is one JSON-RPC message from the agent, decoded only as far as
// routing needs; params and results stay raw.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *wireError) err() error {
	var data any
	if len(e.Data) > 0 {
		data = e.Data
	}
	return acp.NewError(e.Code, e.Message, data)
}

type reply struct {
	result json.RawMessage
	err    error
}

// agentConn is one running agent process and the JSON-RPC connection over
// its stdin and stdout. The bridge is the agent's client: it sends requests
// with its own ids (the only place ids are remapped) and answers the agent's
// requests with the agent's ids unchanged.
//
// One reader goroutine owns stdout. It forwards the agent's notifications
// through the session's client in arrival order, before it hands over the
// answer that follows them, so a turn's updates always precede its answer.
// Each agent request runs in its own goroutine, owned by wg, so a pending
// permission question never stalls the stream.
type agentConn struct {
	name  string
	p     proc.Process
	log   zerolog.Logger
	trace func(toAgent bool, line []byte)
	rc    acp.RawClient // nil for the control connection

	ctx    context.Context // ends when the connection is stopped
	cancel context.CancelFunc
	wg     sync.WaitGroup // agent request handlers
	done   chan struct{}  // closed when the reader has ended and pending calls failed

	// filter drops session/update notifications while a re-attach
	// session/load replays history the editor already has.
	filter atomic.Bool

	wmu sync.Mutex // serialises writes to stdin

	mu       sync.Mutex
	next     int64                         // guarded by mu
	pending  map[int64]chan reply          // guarded by mu
	handlers map[string]context.CancelFunc // guarded by mu; agent requests being answered
	deathErr error                         // guarded by mu; set before done is closed
}

func newAgentConn(p proc.Process, name string, log zerolog.Logger, trace func(bool, []byte), rc acp.RawClient) *agentConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &agentConn{
		name: name, p: p, log: log, trace: trace, rc: rc,
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		pending: make(map[int64]chan reply), handlers: make(map[string]context.CancelFunc),
	}
	go c.readLoop()
	return c
}

// write sends one message as one line.
func (c *agentConn) write(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if c.trace != nil {
		c.trace(true, line)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.p.Stdin().Write(append(line, '\n'))
	return err
}

type outRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type outNotification struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type outResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// start sends a request and returns its id and the channel its answer
// arrives on.
func (c *agentConn) start(method string, params json.RawMessage) (int64, <-chan reply, error) {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.deathErr != nil {
		err := c.deathErr
		c.mu.Unlock()
		return 0, nil, err
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(outRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}); err != nil {
		c.forget(id)
		return 0, nil, fmt.Errorf("writing %s to %s: %w", method, c.name, err)
	}
	return id, ch, nil
}

func (c *agentConn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// call sends a request and waits for its answer. When ctx ends first the
// agent is sent $/cancel_request for it.
func (c *agentConn) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	id, ch, err := c.start(method, params)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id)
		c.notify(acp.MethodCancelRequest, json.RawMessage(`{"requestId":`+strconv.FormatInt(id, 10)+`}`))
		return nil, context.Cause(ctx)
	}
}

// notify sends a notification; a failure means the agent is gone, which
// the reader reports.
func (c *agentConn) notify(method string, params json.RawMessage) {
	if err := c.write(outNotification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		c.log.Debug().Err(err).Str("method", method).Msg("notifying the agent")
	}
}

func (c *agentConn) readLoop() {
	r := bufio.NewReaderSize(c.p.Stdout(), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			c.die(err)
			return
		}
	}
}

func (c *agentConn) dispatch(line []byte) {
	if c.trace != nil {
		c.trace(false, line)
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		c.log.Warn().Int("bytes", len(line)).Msg("agent wrote a line that is not JSON; skipped")
		return
	}
	f, ok := split(line)
	if !ok {
		c.log.Warn().Int("bytes", len(line)).Msg("agent wrote a line that is not a JSON-RPC message; skipped")
		return
	}
	switch {
	case f.Method == "" && len(f.ID) > 0:
		c.retire(f)
	case f.Method != "" && len(f.ID) > 0:
		c.serve(f)
	case f.Method == acp.MethodCancelRequest:
		c.cancelHandler(f.Params)
	case f.Method != "":
		c.forward(f)
	}
}

func (c *agentConn) retire(f frame) {
	id, err := strconv.ParseInt(string(f.ID), 10, 64)
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if err != nil || !ok {
		c.log.Debug().RawJSON("id", f.ID).Msg("answer to no pending request ignored")
		return
	}
	if f.Error != nil {
		ch <- reply{err: f.Error.err()}
		return
	}
	ch <- reply{result: f.Result}
}

// forward passes an agent notification to the editor, in order.
func (c *agentConn) forward(f frame) {
	if c.rc == nil {
		c.log.Debug().Str("method", f.Method).Msg("notification outside a session dropped")
		return
	}
	if !clientMethod(f.Method) {
		c.log.Debug().Str("method", f.Method).Msg("agent notification outside ACP dropped")
		return
	}
	if f.Method == acp.MethodSessionUpdate && (c.filter.Load() || emptyChunk(f.Params)) {
		return
	}
	if err := c.rc.NotifyRaw(c.ctx, f.Method, f.Params); err != nil {
		c.log.Debug().Err(err).Str("method", f.Method).Msg("forwarding to the editor")
	}
}

// serve answers one agent request with the editor's answer, off the reader.
func (c *agentConn) serve(f frame) {
	key := string(f.ID)
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.handlers[key] = cancel
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.handlers, key)
			c.mu.Unlock()
			cancel()
		}()
		resp := outResponse{JSONRPC: "2.0", ID: f.ID}
		var res json.RawMessage
		var err error
		switch {
		case !clientMethod(f.Method):
			err = acp.NewError(acp.CodeMethodNotFound, "Method not found: "+f.Method, nil)
		case c.rc == nil:
			err = errors.New("no editor session to ask")
		default:
			res, err = c.rc.CallRaw(ctx, f.Method, f.Params)
		}
		switch {
		case err == nil:
			if len(res) == 0 {
				res = json.RawMessage("null")
			}
			resp.Result = res
		default:
			resp.Error = toWire(err)
		}
		if ctx.Err() != nil && c.ctx.Err() != nil {
			return // the agent is gone
		}
		if werr := c.write(resp); werr != nil {
			c.log.Debug().Err(werr).Str("method", f.Method).Msg("answering the agent")
		}
	}()
}

func toWire(err error) *wireError {
	var ae *acp.Error
	if errors.As(err, &ae) {
		w := &wireError{Code: ae.Code, Message: ae.Message}
		if ae.Data != nil {
			w.Data, _ = json.Marshal(ae.Data)
		}
		return w
	}
	if errors.Is(err, context.Canceled) {
		return &wireError{Code: acp.CodeRequestCancelled, Message: "Request cancelled"}
	}
	return &wireError{Code: acp.CodeInternalError, Message: "Internal error: " + err.Error()}
}

// cancelHandler ends the forwarding of an agent request the agent gave up
// ($/cancel_request from the agent).
func (c *agentConn) cancelHandler(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.handlers[string(p.RequestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// die records why the agent's output ended and fails every pending call
// with it: the agent's name, exit status and stderr tail.
func (c *agentConn) die(readErr error) {
	werr := c.p.Wait()
	var err error
	switch {
	case werr != nil:
		err = fmt.Errorf("the agent stopped: %w", werr)
	case errors.Is(readErr, io.EOF):
		err = fmt.Errorf("the agent stopped: %s exited with status 0", c.name)
	default:
		err = fmt.Errorf("the agent stopped: reading %s: %w", c.name, readErr)
	}
	c.mu.Lock()
	c.deathErr = err
	pending := c.pending
	c.pending = map[int64]chan reply{}
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- reply{err: err}
	}
	c.cancel()
	c.wg.Wait()
	close(c.done)
}

// err is why the agent ended; nil while it runs.
func (c *agentConn) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deathErr
}

// stop ends the agent process (gracefully unless ctx is done) and waits for
// the reader, so nothing the agent wrote is forwarded afterwards.
func (c *agentConn) stop(ctx context.Context) error {
	err := c.p.Stop(ctx)
	<-c.done
	return err
}
