package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxInterned bounds the method names the read loop keeps to hand out
// again without allocating; a peer inventing names must not grow it.
const maxInterned = 64

// routeMessage decodes one message for Options.Route and dispatches it:
// answers to the pending calls, requests and notifications to Route, in
// order. It runs in the read loop. Nothing is answered here: what cannot
// be routed is reported and skipped.
func (c *Conn) routeMessage(line []byte) {
	f, ok := split(line)
	if !ok {
		what := "not a JSON-RPC message"
		if !json.Valid(line) {
			what = "not JSON"
		}
		c.report(fmt.Errorf("%w: skipping a line of %d bytes that is %s", ErrParse, len(line), what))
		return
	}
	var id ID
	if f.id != nil {
		if err := id.UnmarshalJSON(f.id); err != nil {
			c.report(fmt.Errorf("%w: skipping a message: %v", ErrInvalidRequest, err))
			return
		}
	}
	switch {
	case f.method != nil:
		method, err := c.intern(f.method)
		if err != nil {
			c.report(fmt.Errorf("%w: skipping a message: %v", ErrInvalidRequest, err))
			return
		}
		c.cur = Request{ID: id, Method: method, Params: f.params}
		c.opts.Route(&c.cur)
	case id.IsValid():
		// The answer goes to another goroutine: it must not alias the line.
		// (f.err was decoded into memory of its own.)
		c.retire(&Response{ID: id, Result: bytes.Clone(f.result), Error: f.err})
	default:
		c.report(fmt.Errorf("%w: skipping a message with neither method nor id", ErrInvalidRequest))
	}
}

// intern decodes a method name (a JSON string, as split checked). Names
// without escapes are kept, so the names a streaming peer sends over and
// over cost no allocation after the first.
func (c *Conn) intern(raw []byte) (string, error) {
	name := raw[1 : len(raw)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		var m string
		err := json.Unmarshal(raw, &m)
		return m, err
	}
	if string(name) == c.cur.Method { // a stream repeats its method
		return c.cur.Method, nil
	}
	if m, ok := c.methods[string(name)]; ok {
		return m, nil
	}
	if c.methods == nil || len(c.methods) >= maxInterned {
		c.methods = make(map[string]string)
	}
	m := string(name)
	c.methods[m] = m
	return m, nil
}

// errNotRouted is what Respond returns without Options.Route: calls are
// then answered by the Handler's return.
var errNotRouted = errors.New("answering a call outside Options.Route")

// Respond answers the call id that Options.Route was given: with err when
// it is non-nil (converted as a Handler's error is), otherwise with result
// (marshalled with encoding/json; a json.RawMessage passes through, nil is
// null). It returns once the answer is queued, with an error if it cannot
// be (the Conn broke or closed). It may be called from any goroutine.
func (c *Conn) Respond(id ID, result any, err error) error {
	if c.opts.Route == nil {
		return errNotRouted
	}
	if err != nil {
		return c.write(c.ctx, &Response{ID: id, Error: toWireError(err)})
	}
	raw, err := marshalValue(result)
	if err != nil {
		return fmt.Errorf("answering request %v: marshalling result: %w", id, err)
	}
	return c.write(c.ctx, &Response{ID: id, Result: raw})
}
