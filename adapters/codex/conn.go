package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpbridge/acpbridge/adapters/internal/rpcchild"
)

// message is one JSON-RPC message from the app-server: a response (ID and
// Result or Error), a request (ID and Method) or a notification (Method).
type message = rpcchild.Message

// rpcError is a JSON-RPC error object; an error answer from the app-server
// comes back from Call as one.
type rpcError = rpcchild.Error

// errConnClosed is the cause of calls that were pending when the
// app-server's stdout ended.
var errConnClosed = errors.New("codex app-server closed its output")

// conn is a JSON-RPC client over the app-server's stdio (rpcchild, shared
// with the passthrough adapter). One goroutine (run) reads; requests and
// notifications from the server go to handle, which must not block. Call
// and Notify may be used concurrently.
type conn struct {
	rpc *rpcchild.Conn
}

func newConn(w io.Writer, handle func(*message), trace func(bool, []byte)) *conn {
	return &conn{rpc: rpcchild.New(w, rpcchild.Options{
		Name: "codex app-server",
		// handle queues messages for the session's turn: they must outlive
		// the read buffer.
		Handle: func(m *message) { handle(m.Clone()) },
		Ended: func(readErr error) error {
			if errors.Is(readErr, io.EOF) {
				return errConnClosed
			}
			return fmt.Errorf("reading codex app-server: %w", readErr)
		},
		Trace: trace,
	})}
}

// run reads messages until r ends, then fails every pending call.
func (c *conn) run(r io.Reader) { c.rpc.Run(r) }

// write sends one message as one line.
func (c *conn) write(v any) error { return c.rpc.Write(v) }

// Call sends a request and waits for its answer, decoding the result into
// out (when non-nil).
func (c *conn) Call(ctx context.Context, method string, params, out any) error {
	res, err := c.rpc.Call(ctx, method, params)
	if err != nil {
		return err
	}
	if out != nil && len(res) > 0 {
		return lenient(json.Unmarshal(res, out))
	}
	return nil
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error { return c.rpc.Notify(method, params) }

// Reply answers a server-to-client request.
func (c *conn) Reply(id json.RawMessage, result any) error { return c.rpc.Reply(id, result) }

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
func (c *conn) Done() <-chan struct{} { return c.rpc.Done() }
