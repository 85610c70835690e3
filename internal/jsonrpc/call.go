package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// cancelRequestTimeout bounds how long the "$/cancel_request" for an
// abandoned call may take to write.
const cancelRequestTimeout = 5 * time.Second

// maxAbandoned bounds the set of abandoned call ids kept to recognise their
// late answers; a peer that never answers them must not grow it forever.
const maxAbandoned = 1024

// Call sends a request and waits for its answer, which is unmarshalled into
// result unless result is nil. An error response is returned as the *Error
// itself. If ctx ends first, the call is given up at once, a
// "$/cancel_request" for it is sent in the background, and the returned
// error wraps ctx's cause. If the read loop ends first, the error wraps
// ErrDisconnected.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	p, err := c.Start(ctx, method, params)
	if err != nil {
		return err
	}
	return p.Await(ctx, result)
}

// Pending is an outgoing call whose request is queued; Await waits for its
// answer. Each Pending must be awaited once, or its id stays pending until
// the read loop ends.
type Pending struct {
	c      *Conn
	id     ID
	method string
	ch     chan *Response
}

// Start queues a request and returns without waiting for the answer. The
// request keeps its place in the FIFO: whatever is sent after Start
// returns, from any goroutine, is written after it. A caller forwarding a
// peer's stream calls Start where it reads the stream and Await elsewhere,
// so a notification read after a request cannot overtake it and the stream
// does not wait for the answer. Start waits only while the queue is full.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	id := Int64ID(c.nextID.Add(1))
	ch := make(chan *Response, 1)
	c.mu.Lock()
	ended := c.ended
	if !ended {
		c.pending[id] = ch
	}
	c.mu.Unlock()
	if ended {
		return nil, c.disconnected(method)
	}
	if err := c.write(ctx, &Request{ID: id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	return &Pending{c: c, id: id, method: method, ch: ch}, nil
}

// ID returns the call's id.
func (p *Pending) ID() ID { return p.id }

// Await waits for the answer to the call, as Call does.
func (p *Pending) Await(ctx context.Context, result any) error {
	resp, gaveUp, err := p.wait(ctx)
	if gaveUp {
		p.c.abandon(p.id)
		return fmt.Errorf("calling %q: %w", p.method, err)
	}
	return p.decode(resp, err, result)
}

// Wait waits for the answer to the call, as Await does, except when ctx
// ends first: the call then stays pending and ctx's cause itself is
// returned, so the caller may tell the peer in its own way (ACP's
// session/cancel for a prompt), then Wait again, Await or Forget.
func (p *Pending) Wait(ctx context.Context, result any) error {
	resp, _, err := p.wait(ctx)
	return p.decode(resp, err, result)
}

// wait returns the answer, or the error of a call that has none: the
// Conn's end, or ctx's cause (gaveUp).
func (p *Pending) wait(ctx context.Context) (resp *Response, gaveUp bool, err error) {
	select {
	case resp := <-p.ch:
		return resp, false, nil
	case <-ctx.Done():
	case <-p.c.done:
		select {
		case resp := <-p.ch:
			return resp, false, nil
		default:
			return nil, false, p.c.disconnected(p.method)
		}
	}
	select {
	case resp := <-p.ch: // answered meanwhile: the answer wins
		return resp, false, nil
	default:
		return nil, true, context.Cause(ctx)
	}
}

// decode returns the answer's error, or unmarshals its result into result
// (unless result is nil).
func (p *Pending) decode(resp *Response, err error, result any) error {
	switch {
	case err != nil:
		return err
	case resp.Error != nil:
		return resp.Error
	case result != nil:
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("decoding result of %q: %w", p.method, err)
		}
	}
	return nil
}

// Forget gives up the call without telling the peer (whose protocol may
// have no "$/cancel_request"): its answer, if it comes, is dropped.
func (p *Pending) Forget() {
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	if _, waiting := p.c.pending[p.id]; waiting {
		delete(p.c.pending, p.id)
		p.c.abandonedLocked(p.id)
	}
}

// Notify sends a notification. It returns once the message is queued for
// writing, so notifications and answers sent from one goroutine go out in
// the order they were sent; it waits only while the queue is full (the
// peer reads slowly), and returns ctx's cause if ctx ends meanwhile. A
// write that fails later breaks the Conn, and later sends return that
// error. params is encoded by its AppendJSON method when it has one that
// writes what json.Marshal would (acp.SessionNotification), otherwise by
// encoding/json.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	buf := c.scratch.Get().(*[]byte)
	defer c.putScratch(buf)
	data, err := appendNotification((*buf)[:0], c.opening, method, params)
	*buf = data
	if err == nil {
		err = c.out.push(ctx, data)
	}
	if err != nil {
		return fmt.Errorf("notifying %q: %w", method, err)
	}
	return nil
}

// NotifyRaw is Notify for params that are already one valid, compact JSON
// value, or empty for none: they are written as they are, unchecked, with
// no encoding step and no allocation. It is the path of updates forwarded
// from an agent that speaks ACP itself, which the adapter has checked.
func (c *Conn) NotifyRaw(ctx context.Context, method string, params []byte) error {
	buf := c.scratch.Get().(*[]byte)
	defer c.putScratch(buf)
	data := append(append((*buf)[:0], c.opening...), `"method":`...)
	data = appendString(data, method)
	if len(params) > 0 {
		data = append(append(data, `,"params":`...), params...)
	}
	data = append(data, '}')
	*buf = data
	if err := c.out.push(ctx, data); err != nil {
		return fmt.Errorf("notifying %q: %w", method, err)
	}
	return nil
}

// appendNotification encodes a notification as EncodeMessage would encode
// &Request{Method: method, Params: marshalParams(params)}, without the
// intermediate copies. open is opening or openingNoVersion.
func appendNotification(dst []byte, open, method string, params any) ([]byte, error) {
	dst = append(append(dst, open...), `"method":`...)
	dst = appendString(dst, method)
	noParams := len(dst)
	dst = append(dst, `,"params":`...)
	start := len(dst)
	dst, err := appendValue(dst, params)
	if err != nil {
		return dst[:0], err
	}
	if p := dst[start:]; len(p) == 0 || string(p) == "null" {
		dst = dst[:noParams]
	}
	return append(dst, '}'), nil
}

func (c *Conn) disconnected(method string) error {
	err := c.Err()
	if err != nil && c.opts.OnEnd != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("calling %q: %w: %w", method, ErrDisconnected, err)
	}
	return fmt.Errorf("calling %q: %w", method, ErrDisconnected)
}

// retire delivers a response to the call waiting for it. It runs in the read
// loop.
func (c *Conn) retire(r *Response) {
	c.mu.Lock()
	ch, ok := c.pending[r.ID]
	delete(c.pending, r.ID)
	_, late := c.abandoned[r.ID]
	delete(c.abandoned, r.ID)
	c.mu.Unlock()
	switch {
	case ok:
		ch <- r // 1-buffered and used once: never blocks
	case !late:
		c.report(fmt.Errorf("response to unknown request id %v", r.ID))
	}
}

// forget drops a pending call whose request could not be written.
func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// abandon gives up a pending call whose caller's ctx ended and, unless it
// was answered meanwhile or the read loop has ended, asks the peer to cancel
// it without making the caller wait for that write.
func (c *Conn) abandon(id ID) {
	c.mu.Lock()
	_, waiting := c.pending[id]
	delete(c.pending, id)
	send := waiting && !c.ended
	if send {
		c.abandonedLocked(id)
		c.bg.Add(1) // under mu, before ended is set: Wait cannot have begun
	}
	c.mu.Unlock()
	if !send {
		return
	}
	go func() {
		defer c.bg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, cancelRequestTimeout)
		defer cancel()
		params := map[string]ID{"requestId": id}
		if err := c.Notify(ctx, MethodCancelRequest, params); err != nil && c.ctx.Err() == nil {
			c.report(err)
		}
	}()
}

// abandonedLocked notes that the answer to id, if it comes, is expected
// and dropped. c.mu is held.
func (c *Conn) abandonedLocked(id ID) {
	if len(c.abandoned) >= maxAbandoned {
		clear(c.abandoned)
	}
	c.abandoned[id] = struct{}{}
}

// marshalParams marshals params, with nil (or JSON null) as absent.
func marshalParams(params any) (json.RawMessage, error) {
	raw, err := marshalValue(params)
	if err != nil || string(raw) == "null" {
		return nil, err
	}
	return raw, nil
}
