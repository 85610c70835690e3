package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestConnBadMessages sends each kind of bad input and checks the exact
// error reply, then that the connection still serves.
func TestConnBadMessages(t *testing.T) {
	tests := []struct {
		name     string
		framing  framing
		raw      string // sent unframed
		wantID   ID
		wantCode int64
		wantMsg  string // prefix
	}{
		{"invalid JSON", framingNDJSON, "{\"jsonrpc\":\"2.0\",\"id\":1,\n", ID{}, -32700, "Parse error"},
		{"not JSON at all", framingNDJSON, "hello\n", ID{}, -32700, "Parse error"},
		{"batch", framingNDJSON, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n", ID{}, -32600, "Invalid request: batch"},
		{"empty batch", framingNDJSON, "[]\n", ID{}, -32600, "Invalid request: batch"},
		{"number", framingNDJSON, "42\n", ID{}, -32600, "Invalid request: message is not an object"},
		{"string", framingNDJSON, "\"x\"\n", ID{}, -32600, "Invalid request: message is not an object"},
		{"null", framingNDJSON, "null\n", ID{}, -32600, "Invalid request: message is not an object"},
		{"wrong version", framingNDJSON, `{"jsonrpc":"1.0","id":7,"method":"ping"}` + "\n", Int64ID(7), -32600, `Invalid request: "jsonrpc" must be "2.0"`},
		{"missing version", framingNDJSON, `{"id":"a","method":"ping"}` + "\n", StringID("a"), -32600, `Invalid request: "jsonrpc" must be "2.0"`},
		{"method not a string", framingNDJSON, `{"jsonrpc":"2.0","id":"b","method":5}` + "\n", StringID("b"), -32600, `Invalid request: "method"`},
		{"params not structured", framingNDJSON, `{"jsonrpc":"2.0","id":3,"method":"ping","params":1}` + "\n", Int64ID(3), -32600, `Invalid request: "params"`},
		{"fractional id", framingNDJSON, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n", ID{}, -32600, "Invalid request: id must be"},
		{"empty object", framingNDJSON, "{}\n", ID{}, -32600, "Invalid request"},
		{"content-length body not JSON", framingContentLength, "Content-Length: 3\r\n\r\nabc", ID{}, -32700, "Parse error"},
		{"content-length batch", framingContentLength, "Content-Length: 2\r\n\r\n[]", ID{}, -32600, "Invalid request: batch"},
		{"malformed header", framingContentLength, "Content-Length 12\r\n\r\n{}", ID{}, -32700, "Parse error: malformed Content-Length framing"},
		{"bad length", framingContentLength, "Content-Length: -4\r\n\r\n{}", ID{}, -32700, "Parse error: malformed Content-Length framing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, tt.framing, Options{Handler: handlerMap(nil)}, StdioOptions{})
				h.ping(100) // fixes the framing before the bad input
				h.sendRaw([]byte(tt.raw))
				assertErrorResponse(t, h.recv(), tt.wantID, tt.wantCode, tt.wantMsg)
				h.ping(101)
			})
		})
	}
}

// TestConnTooLarge refuses a message over the size limit with the exact
// -32600 reply, naming the request's id when its first bytes do, and then
// serves the next message. The limit is small here; TestStdioDefaultLimit
// covers the real one.
func TestConnTooLarge(t *testing.T) {
	const limit = 1 << 10
	pad := strings.Repeat("x", 2*limit)
	huge := strings.Repeat("x", 64<<10+limit) // the id comes too late
	cl := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	tests := []struct {
		name    string
		framing framing
		raw     string
		want    string
	}{
		{"ndjson: numeric id", framingNDJSON, `{"jsonrpc":"2.0","id":7,"method":"big","params":{"s":"` + pad + `"}}` + "\n",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"message of 2105 bytes exceeds the 1 KiB limit"}}`},
		{"ndjson: string id after params", framingNDJSON, ` {"method":"big", "params":{"id":1,"a":[{"id":2}]}, "jsonrpc":"2.0","id":"q-1","s":"` + pad + "\"}\r\n",
			`{"jsonrpc":"2.0","id":"q-1","error":{"code":-32600,"message":"message of 2134 bytes exceeds the 1 KiB limit"}}`},
		{"ndjson: id only in params", framingNDJSON, `{"jsonrpc":"2.0","method":"big","params":{"id":5,"s":"` + pad + `"}}` + "\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 2105 bytes exceeds the 1 KiB limit"}}`},
		{"ndjson: id beyond the first bytes", framingNDJSON, `{"jsonrpc":"2.0","method":"big","params":{"s":"` + huge + `"},"id":8}` + "\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 66617 bytes exceeds the 1 KiB limit"}}`},
		{"ndjson: not JSON before the id", framingNDJSON, `{"jsonrpc" "2.0","id":7,"s":"` + pad + `"}` + "\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 2079 bytes exceeds the 1 KiB limit"}}`},
		{"content-length: id", framingContentLength, cl(`{"jsonrpc":"2.0","id":7,"method":"big","params":{"s":"` + pad + `"}}`),
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"message of 2105 bytes exceeds the 1 KiB limit"}}`},
		{"content-length: bogus length", framingContentLength, "Content-Length: 99999999999\r\n\r\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 99999999999 bytes exceeds the 1 KiB limit"}}`},
		{"content-length: bogus length, short body", framingContentLength, "Content-Length: 99999999999\r\n\r\n" + `{"jsonrpc":"2.0","id":3,"method":"x"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"message of 99999999999 bytes exceeds the 1 KiB limit"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, tt.framing, Options{Handler: handlerMap(nil)}, StdioOptions{MaxMessageSize: limit})
				h.ping(1)
				go h.sendRaw([]byte(tt.raw)) // the pipe only moves as the Conn reads
				h.expect(tt.want)
				h.ping(2)
			})
		})
	}
}

// TestConnTooLargeResponse fails the call that an oversized response
// answers, instead of answering the response or leaving the call waiting.
func TestConnTooLargeResponse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 1 << 10
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(nil)}, StdioOptions{MaxMessageSize: limit})
		res := startCall(t.Context(), h.conn, "fs/read_text_file", nil)
		h.expect(`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file"}`)
		h.send(`{"jsonrpc":"2.0","id":1,"result":{"content":"` + strings.Repeat("x", 2*limit) + `"}}`)
		r := <-res
		var e *Error
		if !errors.As(r.err, &e) || e.Code != ErrInvalidRequest.Code || !strings.Contains(e.Message, "exceeds the 1 KiB limit") {
			t.Fatalf("Call = %s, %v; want -32600 naming the limit", r.result, r.err)
		}
		h.ping(2) // the next message the peer gets is the ping's answer
	})
}

// TestConnContentLengthMalformed answers each kind of bad Content-Length
// framing and goes on with the next frame.
func TestConnContentLengthMalformed(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"negative", "Content-Length: -1\r\n\r\n{}", `invalid Content-Length \"-1\"`},
		{"not a number", "Content-Length: ten\r\n\r\n{}", `invalid Content-Length \"ten\"`},
		{"conflicting duplicates", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "conflicting Content-Length headers 2 and 3"},
		{"no length", "Content-Type: application/json\r\n\r\n{}", "header block without Content-Length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, framingContentLength, Options{Handler: handlerMap(nil)}, StdioOptions{})
				h.ping(1)
				h.sendRaw([]byte(tt.raw))
				h.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: malformed Content-Length framing: ` + tt.want + `"}}`)
				h.ping(2)
			})
		})
	}
}

// TestConnTruncatedAtEOF answers a message cut short by the end of the
// input (the sender may still read its answers), then ends cleanly.
func TestConnTruncatedAtEOF(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"body", "Content-Length: 40\r\n\r\n{\"jsonrpc\"", "the input ended 10 bytes into a message of Content-Length 40"},
		{"headers", "Content-Length: 40\r\n", "the input ended inside a header block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, framingContentLength, Options{Handler: handlerMap(nil)}, StdioOptions{})
				h.ping(1)
				h.sendRaw([]byte(tt.raw))
				h.raw.Close()
				h.expect(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: malformed Content-Length framing: ` + tt.want + `"}}`)
				<-h.conn.Done()
				if err := h.conn.Err(); err != nil {
					t.Errorf("Err = %v, want nil after the end of input", err)
				}
			})
		})
	}
}

// TestConnCancelRequest cancels an in-flight call with $/cancel_request and
// checks what the handler sees and what the peer gets back.
func TestConnCancelRequest(t *testing.T) {
	tests := []struct {
		name    string
		handler func(ctx context.Context) (any, error)
		want    string
	}{
		{"handler returns ctx.Err", func(ctx context.Context) (any, error) { return nil, ctx.Err() },
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}`},
		{"handler returns wrapped cause", func(ctx context.Context) (any, error) {
			return nil, fmt.Errorf("stopping turn: %w", context.Cause(ctx))
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}`},
		{"handler returns a partial result", func(ctx context.Context) (any, error) {
			return map[string]string{"stopReason": "cancelled"}, nil
		}, `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan struct{})
				var cause error
				h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
					"slow": func(ctx context.Context, _ *Request) (any, error) {
						close(started)
						<-ctx.Done()
						cause = context.Cause(ctx)
						return tt.handler(ctx)
					},
				})}, StdioOptions{})
				h.send(`{"jsonrpc":"2.0","id":1,"method":"slow","params":{}}`)
				<-started
				h.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
				h.expect(tt.want)
				if cause != ErrRequestCancelled {
					t.Errorf("handler ctx cause = %v, want ErrRequestCancelled", cause)
				}
				// The id is free again at once.
				h.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				h.expect(`{"jsonrpc":"2.0","id":1,"result":"pong"}`)
			})
		})
	}
}

// TestConnCancelRequestUnknown ignores cancels for finished or unknown ids.
func TestConnCancelRequestUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(nil)}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"gone"}}`)
		h.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{}}`)
		h.ping(1)
		synctest.Wait()
		if errs := h.internalErrors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "invalid params") {
			t.Errorf("internal errors = %v, want one about invalid params", errs)
		}
	})
}

// TestConnPreempt shows that Preempt runs while a call is blocked, and that
// a preempted call is answered with null.
func TestConnPreempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		h := newHarness(t, framingNDJSON, Options{
			Handler: handlerMap(map[string]Handler{
				"session/prompt": func(context.Context, *Request) (any, error) {
					close(started)
					<-release
					return "released", nil
				},
			}),
			Preempt: func(_ context.Context, req *Request) bool {
				if req.Method != "session/cancel" {
					return false
				}
				close(release) // must not block
				return true
			},
		}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`)
		<-started
		h.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)
		h.expect(`{"jsonrpc":"2.0","id":1,"result":"released"}`)
	})
}

// TestConnSync runs a Sync method in the read loop: nothing after it is
// dispatched until it returns.
func TestConnSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var pinged atomic.Bool
		h := newHarness(t, framingNDJSON, Options{
			Handler: handlerMap(map[string]Handler{
				"initialize": func(context.Context, *Request) (any, error) { <-release; return "ok", nil },
				"ping":       func(context.Context, *Request) (any, error) { pinged.Store(true); return "pong", nil },
			}),
			Sync: func(m string) bool { return m == "initialize" },
		}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
		h.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		synctest.Wait()
		if pinged.Load() {
			t.Fatal("ping ran while the Sync initialize was still running")
		}
		close(release)
		h.expect(`{"jsonrpc":"2.0","id":1,"result":"ok"}`)
		h.expect(`{"jsonrpc":"2.0","id":2,"result":"pong"}`)
	})
}

// TestConnNotificationOrder sends notifications while a call is blocked
// until they have all been handled: the call does not hold them up, they
// run one at a time, and in order.
func TestConnNotificationOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 50
		var (
			mu            sync.Mutex
			got           []int
			running, peak atomic.Int32
			all           = make(chan struct{})
		)
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"note": func(_ context.Context, req *Request) (any, error) {
				peak.Store(max(peak.Load(), running.Add(1)))
				defer running.Add(-1)
				var p struct{ N int }
				if err := json.Unmarshal(req.Params, &p); err != nil {
					return nil, err
				}
				mu.Lock()
				got = append(got, p.N)
				if len(got) == n {
					close(all)
				}
				mu.Unlock()
				return nil, nil
			},
			"wait": func(context.Context, *Request) (any, error) { <-all; return "done", nil },
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		for i := range n {
			h.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"note","params":{"n":%d}}`, i))
			if i == n/2 {
				h.ping(2) // calls are served between notifications
			}
		}
		h.expect(`{"jsonrpc":"2.0","id":1,"result":"done"}`)
		for i, v := range got {
			if v != i {
				t.Fatalf("notifications handled in order %v", got)
			}
		}
		if peak.Load() != 1 {
			t.Errorf("%d notification handlers ran at once, want 1", peak.Load())
		}
	})
}

// TestConnNotificationErrors reports failing notifications and never
// answers them.
func TestConnNotificationErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"boom": func(context.Context, *Request) (any, error) { panic("kaboom") },
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","method":"nosuch"}`)
		h.send(`{"jsonrpc":"2.0","method":"boom"}`)
		h.ping(1) // the first message back is the ping's answer
		synctest.Wait()
		errs := h.internalErrors()
		if !errorsContain(errs, `"nosuch": Method not found`) || !errorsContain(errs, "kaboom") {
			t.Errorf("internal errors = %v", errs)
		}
	})
}

// TestConnResponseAfterNotifications checks that every notification a
// handler sent before returning is written before its answer, while another
// handler writes concurrently.
func TestConnResponseAfterNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 200
		var conn *Conn
		notify := func(ctx context.Context, tag string) {
			for i := range n {
				if err := conn.Notify(ctx, "session/update", map[string]any{"tag": tag, "i": i}); err != nil {
					t.Errorf("Notify: %v", err)
				}
			}
		}
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"prompt": func(ctx context.Context, req *Request) (any, error) {
				var p struct{ Tag string }
				_ = json.Unmarshal(req.Params, &p)
				notify(ctx, p.Tag)
				return map[string]string{"stopReason": "end_turn"}, nil
			},
		})}, StdioOptions{})
		conn = h.conn
		h.send(`{"jsonrpc":"2.0","id":"a","method":"prompt","params":{"tag":"a"}}`)
		h.send(`{"jsonrpc":"2.0","id":"b","method":"prompt","params":{"tag":"b"}}`)
		seen := map[string]int{}
		for answered := 0; answered < 2; {
			m, err := DecodeMessage(h.recv())
			if err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *Request:
				var p struct {
					Tag string
					I   int
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.I != seen[p.Tag] {
					t.Fatalf("update %d of %q arrived as number %d", p.I, p.Tag, seen[p.Tag])
				}
				seen[p.Tag]++
			case *Response:
				if tag := m.ID.Raw().(string); seen[tag] != n {
					t.Fatalf("answer to %q after %d of its %d updates", tag, seen[tag], n)
				}
				answered++
			}
		}
	})
}

// TestConnPanic answers a panicking call with -32603 and keeps serving.
func TestConnPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"boom": func(context.Context, *Request) (any, error) { panic(errors.New("kaboom")) },
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
		assertErrorResponse(t, h.recv(), Int64ID(1), -32603, `Internal error: handler for "boom" panicked: kaboom`)
		h.ping(2)
		if errs := h.internalErrors(); !errorsContain(errs, "goroutine") {
			t.Errorf("panic report without a stack: %v", errs)
		}
	})
}

// TestConnErrorCoercion checks what each kind of handler error becomes.
func TestConnErrorCoercion(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"wire error", &Error{Code: -32000, Message: "Authentication required", Data: json.RawMessage(`{"x":1}`)},
			`{"code":-32000,"message":"Authentication required","data":{"x":1}}`},
		{"wrapped sentinel", fmt.Errorf("%w: missing cwd", ErrInvalidParams), `{"code":-32602,"message":"Invalid params: missing cwd"}`},
		{"method not found", ErrMethodNotFound, `{"code":-32601,"message":"Method not found"}`},
		{"rpc error", fakeACPError{-32002, "Resource not found", map[string]string{"uri": "f"}},
			`{"code":-32002,"message":"Resource not found","data":{"uri":"f"}}`},
		{"wrapped rpc error", fmt.Errorf("%w: no session s1", fakeACPError{-32002, "Resource not found", nil}),
			`{"code":-32002,"message":"Resource not found: no session s1"}`},
		{"unmarshallable data", fakeACPError{-32002, "Resource not found", func() {}},
			`{"code":-32002,"message":"Resource not found (error data dropped: json: unsupported type: func())"}`},
		{"canceled", fmt.Errorf("waiting: %w", context.Canceled), `{"code":-32800,"message":"Request cancelled"}`},
		{"plain", errors.New("disk full"), `{"code":-32603,"message":"disk full"}`},
		{"typed nil", (*Error)(nil), `{"code":-32603,"message":"handler returned a nil *Error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
					"fail": func(context.Context, *Request) (any, error) { return nil, tt.err },
				})}, StdioOptions{})
				h.send(`{"jsonrpc":"2.0","id":1,"method":"fail"}`)
				h.expect(`{"jsonrpc":"2.0","id":1,"error":` + tt.want + `}`)
			})
		})
	}
}

// fakeACPError stands in for acp.Error, which crosses by its RPCError method.
type fakeACPError struct {
	code int
	msg  string
	data any
}

func (e fakeACPError) Error() string { return e.msg }
func (e fakeACPError) RPCError() (int64, string, any) {
	return int64(e.code), e.msg, e.data
}

// TestConnDuplicateID rejects a call that reuses an in-flight id.
func TestConnDuplicateID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"slow": func(context.Context, *Request) (any, error) { <-release; return 1, nil },
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":9,"method":"slow"}`)
		synctest.Wait()
		h.send(`{"jsonrpc":"2.0","id":9,"method":"slow"}`)
		assertErrorResponse(t, h.recv(), Int64ID(9), -32600, "request id 9 is already in flight")
		close(release)
		h.expect(`{"jsonrpc":"2.0","id":9,"result":1}`)
	})
}

// blockingReader is a reader that cannot be interrupted, like a blocking read
// of the process's stdin: it returns only when unblock is closed.
type blockingReader struct{ unblock chan struct{} }

func (r blockingReader) Read([]byte) (int, error) {
	<-r.unblock
	return 0, io.EOF
}

// TestConnCloseUninterruptibleReader returns from Close even though the
// stream's reader never returns; the stream's read goroutine ends once the
// reader does.
func TestConnCloseUninterruptibleReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := blockingReader{make(chan struct{})}
		s := newStdio(r, io.Discard, StdioOptions{}, framingUnknown)
		c := NewConn(t.Context(), s, Options{})
		synctest.Wait()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.pumpDone:
			t.Fatal("read goroutine ended while its reader was blocked")
		default:
		}
		close(r.unblock)
		<-s.pumpDone
	})
}

func TestThenRunsAfterTheAnswerIsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clientR, bridgeW := io.Pipe()
		bridgeR, clientW := io.Pipe()
		var c *Conn
		c = NewConn(t.Context(), NewStdio(bridgeR, bridgeW, StdioOptions{}), Options{
			Handler: func(ctx context.Context, req *Request) (any, error) {
				return Then("answer", func() {
					c.Notify(context.Background(), "after", nil)
				}), nil
			},
		})
		defer c.Close()
		go io.WriteString(clientW, `{"jsonrpc":"2.0","id":1,"method":"x"}`+"\n")
		r := bufio.NewReader(clientR)
		first, _ := r.ReadString('\n')
		second, _ := r.ReadString('\n')
		if !strings.Contains(first, `"result":"answer"`) || !strings.Contains(second, `"method":"after"`) {
			t.Fatalf("frames out of order:\n%s%s", first, second)
		}
		clientW.Close()
	})
}

// TestThenRunsBeforeTheNextMessage has the peer act on a Then answer at
// once: what it sends next is not handled until after has returned. The
// bridge opens a session in after; a session/prompt handled before that
// had its updates held back and written after its own answer.
func TestThenRunsBeforeTheNextMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var afterDone atomic.Bool
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"open": func(context.Context, *Request) (any, error) {
				return Then("opened", func() {
					<-release
					afterDone.Store(true)
				}), nil
			},
			"use": func(context.Context, *Request) (any, error) { return afterDone.Load(), nil },
		})}, StdioOptions{})
		h.send(`{"jsonrpc":"2.0","id":1,"method":"open"}`)
		h.expect(`{"jsonrpc":"2.0","id":1,"result":"opened"}`)
		h.send(`{"jsonrpc":"2.0","id":2,"method":"use"}`)
		synctest.Wait() // "use" would be handled now, were it not held back
		close(release)
		h.expect(`{"jsonrpc":"2.0","id":2,"result":true}`)
	})
}
