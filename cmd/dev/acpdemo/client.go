package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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

// client is a minimal NDJSON JSON-RPC peer. One goroutine, the one that
// runs the session, handles every frame in the order the agent wrote it:
// answers, updates and permission requests alike. (Printing updates from
// the reader while the session goroutine printed the answers let the
// commands line, sent right after the session/new answer, overtake the
// session line.) The reader goroutine only splits and decodes lines.
type client struct {
	w      io.Writer
	r      *bufio.Reader
	out    *printer
	answer string

	next   int           // the last request id used
	frames chan msg      // decoded frames, in arrival order; closed at EOF
	stop   chan struct{} // closed when the session no longer reads frames
	done   chan struct{} // closed when readLoop returns
}

func newClient(w io.Writer, r io.Reader, out *printer, answer string) *client {
	return &client{w: w, r: bufio.NewReaderSize(r, 1<<16), out: out, answer: answer,
		frames: make(chan msg), stop: make(chan struct{}), done: make(chan struct{})}
}

func (c *client) write(m msg) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// call sends a request and handles every frame that arrives until its
// answer does.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	c.next++
	id := json.RawMessage(fmt.Sprint(c.next))
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := c.write(msg{ID: id, Method: method, Params: p}); err != nil {
		return err
	}
	for {
		select {
		case m, ok := <-c.frames:
			if !ok {
				return errors.New("agent closed its output")
			}
			if m.Method != "" {
				c.handle(m)
				continue
			}
			if string(m.ID) != string(id) {
				continue // an answer to nothing this client asked
			}
			if m.Error != nil {
				return m.Error
			}
			if result != nil {
				return json.Unmarshal(m.Result, result)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readLoop decodes the agent's stdout into frames until EOF, or until the
// session stops reading; it then reads on to EOF so the agent never blocks
// writing.
func (c *client) readLoop() {
	defer close(c.done)
	defer close(c.frames)
	for {
		line, err := c.r.ReadBytes('\n')
		if len(line) > 1 {
			var m msg
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				fmt.Fprintf(os.Stderr, "acpdemo: agent wrote a non-JSON line on stdout: %q\n", line)
			} else {
				select {
				case c.frames <- m:
				case <-c.stop:
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// handle deals with a request or notification from the agent.
func (c *client) handle(m msg) {
	switch m.Method {
	case "session/update":
		c.out.update(m.Params)
	case "session/request_permission":
		c.permission(m)
	default:
		if len(m.ID) > 0 {
			c.write(msg{ID: m.ID, Error: &rpcError{Code: -32601, Message: "Method not found"}})
		}
	}
}
