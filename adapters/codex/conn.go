package codex

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
)

// maxLine bounds one app-server message (a thread/read answer carries a
// whole history, with images).
const maxLine = 64 << 20

// message is one JSON-RPC message from the app-server: a response (ID and
// Result or Error), a request (ID and Method) or a notification (Method).
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("codex app-server: %s (%d)", e.Message, e.Code) }

// errConnClosed is the cause of calls that were pending when the
// app-server's stdout ended.
var errConnClosed = errors.New("codex app-server closed its output")

// conn is a JSON-RPC client over the app-server's stdio. One goroutine
// (run) reads; requests and notifications from the server go to handle,
// which must not block. Call and Notify may be used concurrently.
type conn struct {
	w      io.Writer
	handle func(m *message)
	trace  func(toAgent bool, line []byte)

	wmu sync.Mutex // serialises writes

	mu      sync.Mutex
	nextID  int64                   // guarded by mu
	pending map[int64]chan *message // guarded by mu
	err     error                   // guarded by mu; set when run ends
	done    chan struct{}           // closed when run ends
}

func newConn(w io.Writer, handle func(*message), trace func(bool, []byte)) *conn {
	return &conn{w: w, handle: handle, trace: trace, pending: map[int64]chan *message{}, done: make(chan struct{})}
}

// run reads messages until r ends, then fails every pending call.
func (c *conn) run(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	if err == io.EOF {
		err = errConnClosed
	}
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		delete(c.pending, id)
		close(ch)
	}
	c.mu.Unlock()
	close(c.done)
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("codex app-server message over %d bytes", maxLine)
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func (c *conn) dispatch(line []byte) {
	if c.trace != nil {
		c.trace(false, line)
	}
	m := new(message)
	if err := json.Unmarshal(line, m); err != nil {
		return
	}
	if m.Method == "" && len(m.ID) > 0 {
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			return
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	}
	c.handle(m)
}

// write sends one message as one line.
func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.trace != nil {
		c.trace(true, b[:len(b)-1])
	}
	_, err = c.w.Write(b)
	return err
}

// Call sends a request and waits for its answer, decoding the result into
// out (when non-nil).
func (c *conn) Call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	ch := make(chan *message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	req := struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params}
	if err := c.write(req); err != nil {
		c.forget(id)
		return fmt.Errorf("writing %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return c.closedErr()
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil && len(m.Result) > 0 {
			return lenient(json.Unmarshal(m.Result, out))
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return context.Cause(ctx)
	}
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return errConnClosed
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	return c.write(struct {
		Method string `json:"method"`
		Params any    `json:"params,omitempty"`
	}{method, params})
}

// Reply answers a server-to-client request.
func (c *conn) Reply(id json.RawMessage, result any) error {
	return c.write(struct {
		ID     json.RawMessage `json:"id"`
		Result any             `json:"result"`
	}{id, result})
}

// lenient drops type mismatches: json.Unmarshal still fills every other
// field, and a field of a newer Codex in a shape this adapter does not
// expect must not lose the whole message (a turn's end, say).
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// Done is closed when the app-server's output ended.
func (c *conn) Done() <-chan struct{} { return c.done }
