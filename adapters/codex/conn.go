package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpbridge/acpbridge/adapters/internal/rpcchild"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// message is one request (ID and Method) or notification (Method) from the
// app-server, in memory of its own: the session's turn reads it later.
type message struct {
	ID     json.RawMessage // the request's id as JSON; nil for a notification
	Method string
	Params json.RawMessage
}

// newMessage copies what the reader routed.
func newMessage(req *jsonrpc.Request) *message {
	m := &message{Method: req.Method, Params: append(json.RawMessage(nil), req.Params...)}
	if req.IsCall() {
		m.ID, _ = req.ID.MarshalJSON() // an ID always marshals
	}
	return m
}

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

func newConn(r io.Reader, w io.Writer, handle func(*message), trace func(bool, []byte)) *conn {
	return &conn{rpc: rpcchild.New(r, w, rpcchild.Options{
		Name:      "codex app-server",
		NoVersion: true,
		Handle:    func(req *jsonrpc.Request) { handle(newMessage(req)) },
		Ended: func(readErr error) error {
			if errors.Is(readErr, io.EOF) {
				return errConnClosed
			}
			return fmt.Errorf("reading codex app-server: %w", readErr)
		},
		Trace: trace,
	})}
}

// run reads messages until the app-server's output ends, then fails every
// pending call.
func (c *conn) run() { c.rpc.Run() }

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
func (c *conn) Reply(id json.RawMessage, result any) error {
	var rid jsonrpc.ID
	if err := rid.UnmarshalJSON(id); err != nil {
		return err
	}
	return c.rpc.Reply(rid, result)
}

// ReplyError answers a server-to-client request with an error.
func (c *conn) ReplyError(id json.RawMessage, e *rpcError) error {
	var rid jsonrpc.ID
	if err := rid.UnmarshalJSON(id); err != nil {
		return err
	}
	return c.rpc.ReplyError(rid, e)
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
func (c *conn) Done() <-chan struct{} { return c.rpc.Done() }
