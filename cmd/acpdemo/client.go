package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// msg is a JSON-RPC frame as this client reads it.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// client is a minimal NDJSON JSON-RPC peer.
type client struct {
	w      io.Writer
	r      *bufio.Reader
	out    *printer
	answer string

	wmu     sync.Mutex
	mu      sync.Mutex
	next    int
	pending map[string]chan msg // guarded by mu
	done    chan struct{}       // closed when the agent's stdout ends
}

func newClient(w io.Writer, r io.Reader, out *printer, answer string) *client {
	return &client{w: w, r: bufio.NewReaderSize(r, 1<<16), out: out, answer: answer,
		pending: make(map[string]chan msg), done: make(chan struct{})}
}

func (c *client) write(m msg) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}

func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	c.next++
	id := json.RawMessage(fmt.Sprint(c.next))
	ch := make(chan msg, 1)
	c.pending[string(id)] = ch
	c.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := c.write(msg{ID: id, Method: method, Params: p}); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return m.Error
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-c.done:
		return errors.New("agent closed its output")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *client) readLoop() {
	defer close(c.done)
	for {
		line, err := c.r.ReadBytes('\n')
		if len(line) > 1 {
			c.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

func (c *client) dispatch(line []byte) {
	var m msg
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintf(os.Stderr, "acpdemo: agent wrote a non-JSON line on stdout: %q\n", line)
		return
	}
	switch {
	case m.Method == "session/update":
		c.out.update(m.Params)
	case m.Method == "session/request_permission":
		go c.permission(m)
	case m.Method != "":
		if len(m.ID) > 0 {
			c.write(msg{ID: m.ID, Error: &rpcError{Code: -32601, Message: "Method not found"}})
		}
	default:
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}
