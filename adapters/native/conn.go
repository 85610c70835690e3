package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/internal/rpcchild"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// agentConn is one running agent process and the JSON-RPC connection over
// its stdin and stdout (rpcchild on the JSON-RPC engine, shared with the
// Codex adapter). The
// bridge is the agent's client: it sends requests with its own ids (the
// only place ids are remapped) and answers the agent's requests with the
// agent's ids unchanged.
//
// One reader goroutine owns stdout. It forwards the agent's notifications
// through the session's client in arrival order, before it hands over the
// answer that follows them, so a turn's updates always precede its answer.
// Each agent request runs in its own goroutine, owned by wg, so a pending
// permission question never stalls the stream.
type agentConn struct {
	name string
	p    proc.Process
	log  zerolog.Logger
	// rc is the session's editor, nil while the process serves no session
	// (the control connection, or a spare a session may take over: take
	// sets it before the opening request is sent).
	rc   atomic.Pointer[clientBox]
	rpc  *rpcchild.Conn
	hook func() // Options.serveHook

	ctx    context.Context // ends when the connection is stopped
	cancel context.CancelFunc
	wg     sync.WaitGroup // agent request handlers
	done   chan struct{}  // closed when the reader has ended and pending calls failed

	// filter drops session/update notifications while a re-attach
	// session/load replays history the editor already has.
	filter atomic.Bool

	mu       sync.Mutex
	handlers map[jsonrpc.ID]context.CancelFunc // guarded by mu; agent requests being answered

	// initParams are the initialize params the process was given, and
	// login the authenticate params it holds ("" none): a session may take
	// the process over only when both are its own. busy counts the
	// requests that name no session under way on it, idle is when the
	// last of them ended (or it was filed as free), and kept marks the
	// process started at initialize, for the first session to take over.
	// All are guarded by the Adapter's initMu.
	initParams json.RawMessage
	login      string
	busy       int
	idle       time.Time
	kept       bool
}

// clientBox holds an acp.RawClient for atomic.Pointer.
type clientBox struct{ rc acp.RawClient }

// client is the session's editor, or nil.
func (c *agentConn) client() acp.RawClient {
	if b := c.rc.Load(); b != nil {
		return b.rc
	}
	return nil
}

func newAgentConn(p proc.Process, name string, log zerolog.Logger, trace func(bool, []byte), rc acp.RawClient, hook func()) *agentConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &agentConn{
		name: name, p: p, log: log, hook: hook,
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		handlers: make(map[jsonrpc.ID]context.CancelFunc),
	}
	if rc != nil {
		c.rc.Store(&clientBox{rc})
	}
	c.rpc = rpcchild.New(p.Stdout(), p.Stdin(), rpcchild.Options{
		Name: name, Handle: c.handle, Ended: c.ended, Trace: trace, Logger: log,
	})
	go func() {
		c.rpc.Run()
		c.cancel()
		c.wg.Wait()
		close(c.done)
	}()
	return c
}

// pending is a request sent to the agent.
type pending struct{ p *rpcchild.Pending }

// start sends a request without waiting for its answer.
func (c *agentConn) start(method string, params json.RawMessage) (pending, error) {
	p, err := c.rpc.Start(method, params)
	return pending{p}, err
}

// wait waits for the answer, with the agent's error answer as the ACP
// error the editor gets. When ctx ends first, it returns ctx's cause (see
// waitedOut) and the request stays pending.
func (p pending) wait(ctx context.Context) (json.RawMessage, error) {
	res, err := p.p.Wait(ctx)
	return res, fromWire(err)
}

// waitedOut reports whether err, from wait, says that ctx ended first.
func waitedOut(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && err == context.Cause(ctx)
}

// call sends a request and waits for its answer. When ctx ends first the
// agent is sent $/cancel_request for it.
func (c *agentConn) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p, err := c.rpc.Start(method, params)
	if err != nil {
		return nil, err
	}
	res, err := p.Await(ctx)
	return res, fromWire(err)
}

// notify sends a notification; a failure means the agent is gone, which
// the reader reports.
func (c *agentConn) notify(method string, params json.RawMessage) {
	if err := c.rpc.Notify(method, params); err != nil {
		c.log.Debug().Err(err).Str("method", method).Msg("notifying the agent")
	}
}

// handle routes the agent's requests and notifications; it runs on the
// reader, in the order the agent wrote them.
func (c *agentConn) handle(m *jsonrpc.Request) {
	switch {
	case m.IsCall():
		c.serve(m)
	case m.Method == acp.MethodCancelRequest:
		c.cancelHandler(m.Params)
	default:
		c.forward(m)
	}
}

// forward passes an agent notification to the editor, in order.
func (c *agentConn) forward(m *jsonrpc.Request) {
	rc := c.client()
	if rc == nil {
		c.log.Debug().Str("method", m.Method).Msg("notification outside a session dropped")
		return
	}
	if !clientMethod(m.Method) {
		c.log.Debug().Str("method", m.Method).Msg("agent notification outside ACP dropped")
		return
	}
	if m.Method == acp.MethodSessionUpdate && (c.filter.Load() || emptyChunk(m.Params)) {
		return
	}
	if err := rc.NotifyRaw(c.ctx, m.Method, m.Params); err != nil {
		c.log.Debug().Err(err).Str("method", m.Method).Msg("forwarding to the editor")
	}
}

// serve answers one agent request with the editor's answer, off the
// reader. The request itself is queued to the editor here, on the reader,
// when the client can (acp.RawCallStarter): a notification the agent
// wrote after its request then reaches the editor after it too, while the
// wait for the answer runs in a goroutine of its own and the stream goes
// on.
func (c *agentConn) serve(m *jsonrpc.Request) {
	id, method, params := m.ID, m.Method, json.RawMessage(string(m.Params))
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.handlers[id] = cancel
	c.mu.Unlock()
	rc := c.client()
	var await func() (json.RawMessage, error)
	switch {
	case !clientMethod(method):
		err := acp.NewError(acp.CodeMethodNotFound, "Method not found: "+method, nil)
		await = func() (json.RawMessage, error) { return nil, err }
	case rc == nil:
		await = func() (json.RawMessage, error) { return nil, errors.New("no editor session to ask") }
	default:
		if s, ok := rc.(acp.RawCallStarter); ok {
			await = s.StartCallRaw(ctx, method, params)
		} else {
			await = func() (json.RawMessage, error) { return rc.CallRaw(ctx, method, params) }
		}
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.handlers, id)
			c.mu.Unlock()
			cancel()
		}()
		if c.hook != nil {
			c.hook()
		}
		res, err := await()
		c.answer(ctx, id, method, res, err)
	}()
}

// answer writes the editor's answer (or err) to the agent's request id.
func (c *agentConn) answer(ctx context.Context, id jsonrpc.ID, method string, res json.RawMessage, err error) {
	if ctx.Err() != nil && c.ctx.Err() != nil {
		return // the agent is gone
	}
	var werr error
	if err != nil {
		werr = c.rpc.ReplyError(id, toWire(err))
	} else {
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		werr = c.rpc.Reply(id, res)
	}
	if werr != nil {
		c.log.Debug().Err(werr).Str("method", method).Msg("answering the agent")
	}
}

// fromWire is the agent's error answer as the ACP error the editor gets;
// other errors pass unchanged.
func fromWire(err error) error {
	var e *rpcchild.Error
	if !errors.As(err, &e) {
		return err
	}
	var data any
	if len(e.Data) > 0 {
		data = e.Data
	}
	return acp.NewError(e.Code, e.Message, data)
}

func toWire(err error) *rpcchild.Error {
	var ae *acp.Error
	if errors.As(err, &ae) {
		w := &rpcchild.Error{Code: ae.Code, Message: ae.Message}
		if ae.Data != nil {
			w.Data, _ = json.Marshal(ae.Data)
		}
		return w
	}
	if errors.Is(err, context.Canceled) {
		return &rpcchild.Error{Code: acp.CodeRequestCancelled, Message: "Request cancelled"}
	}
	return &rpcchild.Error{Code: acp.CodeInternalError, Message: "Internal error: " + err.Error()}
}

// cancelHandler ends the forwarding of an agent request the agent gave up
// ($/cancel_request from the agent).
func (c *agentConn) cancelHandler(params json.RawMessage) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.handlers[p.RequestID]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// ended is why the agent's output ended, which every pending call gets:
// the agent's name, exit status and stderr tail.
func (c *agentConn) ended(readErr error) error {
	werr := c.p.Wait()
	switch {
	case werr != nil:
		return fmt.Errorf("the agent stopped: %w", werr)
	case errors.Is(readErr, io.EOF):
		return fmt.Errorf("the agent stopped: %s exited with status 0", c.name)
	default:
		return fmt.Errorf("the agent stopped: reading %s: %w", c.name, readErr)
	}
}

// err is why the agent ended; nil while it runs.
func (c *agentConn) err() error { return c.rpc.Err() }

// stop ends the agent process (gracefully unless ctx is done) and waits for
// the reader, so nothing the agent wrote is forwarded afterwards.
func (c *agentConn) stop(ctx context.Context) error {
	err := c.p.Stop(ctx)
	<-c.done
	return err
}
