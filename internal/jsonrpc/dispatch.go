package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
)

// handleMessage decodes one raw message and dispatches it. It runs in the
// read loop.
func (c *Conn) handleMessage(data []byte) {
	msg, err := DecodeMessage(data)
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) && de.response {
			// Never answer a response; fail the call it was meant for.
			c.report(fmt.Errorf("dropping malformed response: %w", err))
			if de.ID.IsValid() {
				c.retire(&Response{ID: de.ID, Error: toWireError(err)})
			}
			return
		}
		id := ID{}
		if de != nil {
			id = de.ID
		}
		c.replyError(id, toWireError(err))
		return
	}
	switch m := msg.(type) {
	case *Response:
		c.retire(m)
	case *Request:
		c.dispatch(m)
	}
}

// dispatch routes one request: "$/cancel_request" and Preempt inline, Sync
// calls inline, other calls to their own goroutine, notifications to the
// worker queue.
func (c *Conn) dispatch(req *Request) {
	if req.Method == MethodCancelRequest {
		c.cancelIncoming(req)
		if req.IsCall() {
			c.respond(req.ID, nil, nil)
		}
		return
	}
	if c.preempt(req) {
		return
	}
	if !req.IsCall() {
		c.queue.push(req)
		return
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	c.mu.Lock()
	_, dup := c.inflight[req.ID]
	if !dup {
		c.inflight[req.ID] = cancel
	}
	c.mu.Unlock()
	if dup {
		cancel(nil)
		c.report(fmt.Errorf("request id %v reused while in flight (method %q)", req.ID, req.Method))
		c.replyError(req.ID, &Error{Code: ErrInvalidRequest.Code, Message: fmt.Sprintf("request id %v is already in flight", req.ID)})
		return
	}
	if c.opts.Sync != nil && c.opts.Sync(req.Method) {
		c.runCall(ctx, cancel, req)
		return
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		c.runCall(ctx, cancel, req)
	}()
}

// preempt runs Options.Preempt. A panic in it answers a call with -32603
// and drops a notification.
func (c *Conn) preempt(req *Request) (handled bool) {
	if c.opts.Preempt == nil {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("%w: preempting %q panicked: %v", ErrInternal, req.Method, p)
			c.report(fmt.Errorf("%w\n%s", err, debug.Stack()))
			if req.IsCall() {
				c.replyError(req.ID, toWireError(err))
			}
			handled = true
		}
	}()
	if !c.opts.Preempt(c.ctx, req) {
		return false
	}
	if req.IsCall() {
		c.respond(req.ID, nil, nil)
	}
	return true
}

// cancelIncoming handles "$/cancel_request": it cancels the named in-flight
// call's context. The call is still answered, by its handler.
func (c *Conn) cancelIncoming(req *Request) {
	var p struct {
		RequestID ID `json:"requestId"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || !p.RequestID.IsValid() {
		c.report(fmt.Errorf("%s: invalid params %.200s", MethodCancelRequest, req.Params))
		return
	}
	c.mu.Lock()
	cancel := c.inflight[p.RequestID]
	c.mu.Unlock()
	if cancel != nil {
		cancel(ErrRequestCancelled)
	}
}

// runCall runs the handler for a call and writes its answer.
func (c *Conn) runCall(ctx context.Context, cancel context.CancelCauseFunc, req *Request) {
	defer cancel(nil)
	result, err := c.callHandler(ctx, req)
	// The peer may reuse the id as soon as it has the answer, so the entry
	// goes before the answer is written.
	c.mu.Lock()
	delete(c.inflight, req.ID)
	c.mu.Unlock()
	c.respond(req.ID, result, err)
}

// callHandler runs the handler, turning a panic into an ErrInternal error.
func (c *Conn) callHandler(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: handler for %q panicked: %v", ErrInternal, req.Method, p)
			c.report(fmt.Errorf("%w\n%s", err, debug.Stack()))
		}
	}()
	return c.opts.Handler(ctx, req)
}

// respond writes the answer to call id.
func (c *Conn) respond(id ID, result any, err error) {
	if t, ok := result.(thenResult); ok {
		c.thenGate <- struct{}{}
		defer func() { <-c.thenGate }()
		defer t.after()
		result = t.result
	}
	if err != nil {
		c.replyError(id, toWireError(err))
		return
	}
	raw, merr := marshalValue(result)
	if merr != nil {
		err := fmt.Errorf("%w: marshalling result: %v", ErrInternal, merr)
		c.report(fmt.Errorf("answering request %v: %w", id, err))
		c.replyError(id, toWireError(err))
		return
	}
	c.send(&Response{ID: id, Result: raw})
}

// replyError writes an error response.
func (c *Conn) replyError(id ID, e *Error) {
	c.send(&Response{ID: id, Error: e})
}

// send writes a response on the Conn's own behalf: a request's cancellation
// must not stop its answer, so only the Conn's context applies.
func (c *Conn) send(r *Response) {
	if err := c.write(c.ctx, r); err != nil && c.ctx.Err() == nil {
		c.report(fmt.Errorf("answering request %v: %w", r.ID, err))
	}
}

// write encodes one message and queues it for the writer goroutine. It
// returns once the message is queued: the error is ctx's cause if ctx ends
// first, or, once the Conn has broken or closed, why.
func (c *Conn) write(ctx context.Context, m Message) error {
	buf := c.scratch.Get().(*[]byte)
	defer c.putScratch(buf)
	// Params and results come from marshalValue: already compact.
	data, err := appendMessage((*buf)[:0], m, c.opening, true)
	*buf = data
	if err != nil {
		return err
	}
	return c.out.push(ctx, data)
}

// putScratch returns an encoding buffer to the pool, unless one large
// message grew it.
func (c *Conn) putScratch(buf *[]byte) {
	if cap(*buf) <= maxScratch {
		c.scratch.Put(buf)
	}
}

// maxScratch bounds the capacity of encoding buffers kept for reuse.
const maxScratch = 64 << 10

// jsonAppender is implemented by values that encode themselves without
// reflection (acp.SessionNotification). AppendJSON must append to dst
// exactly what json.Marshal would write for the value, which is compact JSON,
// so its output is used as is.
type jsonAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// appendValue appends the encoding of v (nothing for nil).
func appendValue(dst []byte, v any) ([]byte, error) {
	switch a := v.(type) {
	case nil:
		return dst, nil
	case jsonAppender:
		if isNilPointer(v) {
			return append(dst, "null"...), nil // as encoding/json writes it
		}
		return a.AppendJSON(dst)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// marshalValue marshals v, with nil as absent.
func marshalValue(v any) (json.RawMessage, error) {
	if _, ok := v.(jsonAppender); ok || v == nil {
		return appendValue(nil, v)
	}
	return json.Marshal(v)
}
