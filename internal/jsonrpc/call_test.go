package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// callResult is what an outgoing Call returned, for tests that run it in a
// goroutine.
type callResult struct {
	result json.RawMessage
	err    error
}

func startCall(ctx context.Context, c *Conn, method string, params any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		var r json.RawMessage
		err := c.Call(ctx, method, params, &r)
		ch <- callResult{r, err}
	}()
	return ch
}

// TestCall covers the outcomes of an outgoing call.
func TestCall(t *testing.T) {
	tests := []struct {
		name   string
		answer string // the peer's answer to request id 1; empty: none
		check  func(t *testing.T, r callResult)
	}{
		{"answered", `{"jsonrpc":"2.0","id":1,"result":{"content":"hi"}}`, func(t *testing.T, r callResult) {
			if r.err != nil || string(r.result) != `{"content":"hi"}` {
				t.Errorf("Call = %s, %v", r.result, r.err)
			}
		}},
		{"error answered", `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"path":"/x"}}}`,
			func(t *testing.T, r callResult) {
				e, ok := r.err.(*Error)
				if !ok || e.Code != -32002 || e.Message != "Resource not found" || string(e.Data) != `{"path":"/x"}` {
					t.Errorf("Call error = %#v, want the peer's *Error", r.err)
				}
			}},
		{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`, func(t *testing.T, r callResult) {
			if r.err != nil || string(r.result) != "null" {
				t.Errorf("Call = %s, %v", r.result, r.err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
				res := startCall(t.Context(), h.conn, "fs/read_text_file", map[string]string{"path": "/x"})
				h.expect(`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"path":"/x"}}`)
				h.send(tt.answer)
				tt.check(t, <-res)
			})
		})
	}
}

// TestCallContextCancelled gives up a call when its ctx ends, sends
// $/cancel_request for it, and swallows the late answer.
func TestCallContextCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(nil)}, StdioOptions{})
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("turn cancelled")
		res := startCall(ctx, h.conn, "session/request_permission", map[string]string{"sessionId": "s"})
		h.expect(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s"}}`)
		cancel(stop)
		if r := <-res; !errors.Is(r.err, stop) {
			t.Fatalf("Call error = %v, want one wrapping the ctx cause", r.err)
		}
		h.expect(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
		h.send(`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}`)
		h.send(`{"jsonrpc":"2.0","id":77,"result":{}}`)
		h.ping(2)
		errs := h.internalErrors()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "unknown request id 77") {
			t.Errorf("internal errors = %v, want only the unknown id 77", errs)
		}
	})
}

// TestCallPeerDisconnect fails a pending call when the input ends, and
// calls made afterwards at once.
func TestCallPeerDisconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		res := startCall(t.Context(), h.conn, "terminal/create", nil)
		h.expect(`{"jsonrpc":"2.0","id":1,"method":"terminal/create"}`)
		_ = h.raw.Close() // end of input
		if r := <-res; !errors.Is(r.err, ErrDisconnected) {
			t.Fatalf("Call error = %v, want ErrDisconnected", r.err)
		}
		<-h.conn.Done()
		if err := h.conn.Err(); err != nil {
			t.Errorf("Err after clean EOF = %v, want nil", err)
		}
		if err := h.conn.Call(t.Context(), "x", nil, nil); !errors.Is(err, ErrDisconnected) {
			t.Errorf("Call after EOF = %v, want ErrDisconnected", err)
		}
	})
}

// TestCallMalformedResponse fails the call a malformed response names
// instead of answering the response.
func TestCallMalformedResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(nil)}, StdioOptions{})
		res := startCall(t.Context(), h.conn, "fs/write_text_file", nil)
		h.recv()
		h.send(`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"both"}}`)
		if r := <-res; !errors.Is(r.err, ErrInvalidRequest) {
			t.Fatalf("Call error = %v, want ErrInvalidRequest", r.err)
		}
		h.ping(5) // and nothing was written in reply to the response
	})
}

// TestConnEOF keeps in-flight handlers running after the end of input:
// their ctx is not cancelled and their answers are still written.
func TestConnEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release, started := make(chan struct{}), make(chan struct{})
		var ctxErr error
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"slow": func(ctx context.Context, _ *Request) (any, error) {
				close(started)
				<-release
				ctxErr = ctx.Err()
				return "late", nil
			},
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		<-started
		_ = h.raw.Close()
		<-h.conn.Done()
		waited := make(chan error, 1)
		go func() { waited <- h.conn.Wait() }()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatal("Wait returned while a handler was running")
		default:
		}
		close(release)
		h.expect(`{"jsonrpc":"2.0","id":1,"result":"late"}`)
		if err := <-waited; err != nil || ctxErr != nil {
			t.Errorf("Wait = %v, handler ctx err = %v; want nil, nil", err, ctxErr)
		}
	})
}

// TestConnCloseWaits cancels handlers on Close and returns only once they
// have returned.
func TestConnCloseWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release, started := make(chan struct{}), make(chan struct{})
		var cause error
		var finished atomic.Bool
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"slow": func(ctx context.Context, _ *Request) (any, error) {
				close(started)
				<-ctx.Done()
				cause = context.Cause(ctx)
				<-release // slow to wind down
				finished.Store(true)
				return nil, ctx.Err()
			},
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
		<-started
		closed := make(chan error, 1)
		go func() { closed <- h.conn.Close() }()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("Close returned while a handler was running")
		default:
		}
		if cause != errClosed {
			t.Errorf("handler ctx cause = %v, want errClosed", cause)
		}
		close(release)
		if err := <-closed; err != nil || !finished.Load() {
			t.Errorf("Close = %v, handler finished = %v", err, finished.Load())
		}
		if err := h.conn.Err(); err != nil {
			t.Errorf("Err after Close = %v, want nil", err)
		}
		if err := h.conn.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
	})
}

// TestConnWriteFailure breaks the Conn on a failed write: in-flight
// handlers are cancelled with the failure as the cause and the read loop
// ends with it.
func TestConnWriteFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epipe := errors.New("broken pipe")
		s := newChanStream(func(msg []byte) error {
			if strings.Contains(string(msg), `"fail"`) {
				return epipe
			}
			return nil
		})
		started := make(chan struct{})
		var cause error
		var reports atomic.Int32
		c := NewConn(t.Context(), s, Options{
			Handler: handlerMap(map[string]Handler{
				"wait": func(ctx context.Context, _ *Request) (any, error) {
					close(started)
					<-ctx.Done()
					cause = context.Cause(ctx)
					return nil, ctx.Err()
				},
				"answer": func(context.Context, *Request) (any, error) { return "fail", nil },
			}),
			OnInternalError: func(error) { reports.Add(1) },
		})
		defer c.Close()
		s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		<-started
		s.in <- []byte(`{"jsonrpc":"2.0","id":2,"method":"answer"}`)
		<-c.Done()
		_ = c.Wait()
		if !errors.Is(cause, epipe) || !errors.Is(c.Err(), epipe) {
			t.Errorf("handler cause = %v, Err = %v; want both wrapping %v", cause, c.Err(), epipe)
		}
		if err := c.Notify(t.Context(), "x", nil); !errors.Is(err, epipe) {
			t.Errorf("Notify on a broken Conn = %v", err)
		}
		if reports.Load() != 1 {
			t.Errorf("%d reports, want 1 for the broken stream", reports.Load())
		}
	})
}

// TestConnParentCancel ends the Conn when its parent ctx ends; Err reports
// the cause.
func TestConnParentCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		s := newChanStream(func([]byte) error { return nil })
		c := NewConn(ctx, s, Options{})
		stop := errors.New("signal")
		cancel(stop)
		<-c.Done()
		if !errors.Is(c.Err(), stop) {
			t.Errorf("Err = %v, want %v", c.Err(), stop)
		}
		_ = c.Close()
	})
}

// TestConnContentLength serves a Content-Length client end to end: its
// answers and the Conn's own requests are Content-Length framed.
func TestConnContentLength(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, in := io.Pipe()
		inR, inW := io.Pipe()
		c := NewConn(t.Context(), NewStdio(inR, in, StdioOptions{}), Options{Handler: handlerMap(nil)})
		defer c.Close()
		go fmt.Fprintf(inW, "content-length: 40\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s",
			`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		want := "Content-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"result":"pong"}`
		buf := make([]byte, len(want))
		if _, err := io.ReadFull(out, buf); err != nil || string(buf) != want {
			t.Fatalf("got %q, %v; want %q", buf, err, want)
		}
		_ = inW.Close()
		_ = out.Close()
	})
}

// TestStartKeepsOrder: a request queued with Start goes out before
// anything sent after Start returned, even while its answer is awaited
// elsewhere, and Await then gets that answer. This is how a forwarded
// stream keeps the order its source wrote it in: with Call, the request's
// write raced the notifications sent after it.
func TestStartKeepsOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		p, err := h.conn.Start(t.Context(), "session/request_permission", map[string]string{"sessionId": "s"})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.conn.Notify(t.Context(), "session/update", map[string]string{"sessionId": "s"}); err != nil {
			t.Fatal(err)
		}
		h.expect(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s"}}`)
		h.expect(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`)
		h.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"cancelled"}}}`)
		var res json.RawMessage
		if err := p.Await(t.Context(), &res); err != nil || string(res) != `{"outcome":{"outcome":"cancelled"}}` {
			t.Errorf("Await = %s, %v", res, err)
		}
	})
}

// TestNotifyRaw: raw params are written exactly as Notify writes the same
// value, and empty params are left out.
func TestNotifyRaw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		params := json.RawMessage(`{"sessionId":"s","update":{"text":"\u00e9\n"}}`)
		if err := h.conn.Notify(t.Context(), "session/update", params); err != nil {
			t.Fatal(err)
		}
		want := string(h.recv())
		if err := h.conn.NotifyRaw(t.Context(), "session/update", params); err != nil {
			t.Fatal(err)
		}
		if got := string(h.recv()); got != want {
			t.Errorf("NotifyRaw wrote %s, Notify %s", got, want)
		}
		if err := h.conn.NotifyRaw(t.Context(), "_x/ping", nil); err != nil {
			t.Fatal(err)
		}
		h.expect(`{"jsonrpc":"2.0","method":"_x/ping"}`)
	})
}
