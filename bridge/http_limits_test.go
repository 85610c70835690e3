package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// chattyTurn says n things, tells the test, then waits for a cancel.
func chattyTurn(n int, said chan<- struct{}) func(context.Context, *scriptSession, acp.PromptRequest) (acp.StopReason, error) {
	return func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		for i := range n {
			s.say(ctx, chunk("line "+strconv.Itoa(i)))
		}
		said <- struct{}{}
		<-ctx.Done()
		return acp.StopReasonCancelled, nil
	}
}

// TestHTTPSessionMustBeReattached loses messages of a Streamable HTTP
// session stream nobody reads: requests for the session are refused with
// 409 until the client re-attaches it (session/load or session/resume), as
// the TypeScript SDK's client expects.
func TestHTTPSessionMustBeReattached(t *testing.T) {
	v := acptest.Load(t)
	said := make(chan struct{}, 1)
	// Room for a few messages, not for the 200 the turn says.
	ts, _ := startHTTP(t, &scriptAdapter{turn: chattyTurn(200, said)}, bridge.HTTPOptions{MaxBuffered: 8 << 10})
	c := newClient(t, ts.URL, "streamable", v)
	c.start()
	sid := c.newSession()
	// POST the prompt without reading the session's stream.
	if st, body := c.post([]byte(`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"`+sid+
		`","prompt":[{"type":"text","text":"hi"}]}}`), sid); st != http.StatusAccepted {
		t.Fatalf("prompt: %d %s", st, body)
	}
	<-said
	// The bridge writes in order: once the answer to a later request has
	// come on the connection stream, every line of the turn has been
	// queued on the session stream, which kept only the newest.
	list := c.call("session/list", map[string]any{})
	for !c.next().isAnswer(list) {
	}
	probe := `{"jsonrpc":"2.0","id":20,"method":"session/set_mode","params":{"sessionId":"` + sid + `","modeId":"default"}}`
	if st, body := c.post([]byte(probe), sid); st != http.StatusConflict || !strings.Contains(body, "session/load") {
		t.Fatalf("request for a session that lost messages: %d %q, want 409 saying how to re-attach", st, body)
	}
	// Like the SDK, open the session's stream, then re-attach: the stream
	// first says what was lost.
	if st, _ := c.open(sid, ""); st != http.StatusOK {
		t.Fatalf("GET session stream: %d", st)
	}
	if n := c.next(); n.method() != bridge.MethodMessagesLost || n.params()["count"] == nil {
		t.Fatalf("first message on the session stream: %s, want %s with a count", n.raw, bridge.MethodMessagesLost)
	}
	cancel := []byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`)
	if st, _ := c.post(cancel, sid); st != http.StatusConflict {
		t.Fatalf("cancel before re-attaching: %d, want 409", st)
	}
	resume := []byte(`{"jsonrpc":"2.0","id":11,"method":"session/resume","params":{"sessionId":"` + sid + `","cwd":"/tmp"}}`)
	if st, body := c.post(resume, sid); st != http.StatusAccepted {
		t.Fatalf("session/resume: %d %s", st, body)
	}
	if st, body := c.post(cancel, sid); st != http.StatusAccepted {
		t.Fatalf("cancel after re-attaching: %d %s", st, body)
	}
	for {
		f := c.next()
		if f.isAnswer(10) {
			if f.result()["stopReason"] != "cancelled" {
				t.Fatalf("prompt answer %s", f.raw)
			}
			return
		}
	}
}

// closeWatcher reports the sessions its adapter closes.
type closeWatcher struct {
	*scriptAdapter
	closed chan acp.SessionID
}

func (a closeWatcher) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	s, err := a.scriptAdapter.NewSession(ctx, req, c)
	return watchedSession{s, a.closed}, err
}

type watchedSession struct {
	acp.Session
	closed chan acp.SessionID
}

func (s watchedSession) Close() error {
	err := s.Session.Close()
	s.closed <- s.ID()
	return err
}

// TestHTTPIdleConnectionIsClosed leaves a connection with a running turn
// and no stream: after the idle timeout its turn is cancelled, its session
// closed, and its id forgotten.
func TestHTTPIdleConnectionIsClosed(t *testing.T) {
	v := acptest.Load(t)
	for _, shape := range shapes() {
		t.Run(shape, func(t *testing.T) {
			started, ended := make(chan struct{}, 1), make(chan struct{})
			a := closeWatcher{&scriptAdapter{turn: func(ctx context.Context, _ *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
				started <- struct{}{}
				<-ctx.Done()
				close(ended)
				return acp.StopReasonCancelled, nil
			}}, make(chan acp.SessionID, 1)}
			ts, _ := startHTTP(t, a, bridge.HTTPOptions{IdleTimeout: 50 * time.Millisecond})
			c := newClient(t, ts.URL, shape, v)
			c.start()
			sid := c.newSession()
			c.call("session/prompt", prompt(sid))
			<-started
			c.stopAll()
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatal("the turn of an idle connection was not cancelled")
			}
			st, body := c.post([]byte(`{"jsonrpc":"2.0","id":99,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`), "")
			if st != http.StatusNotFound {
				t.Errorf("request on the closed connection: %d %s, want 404", st, body)
			}
			select {
			case id := <-a.closed:
				if string(id) != sid {
					t.Errorf("closed session %s, want %s", id, sid)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the session of an idle connection was not closed")
			}
		})
	}
}

// TestHTTPCloseEndsEverything shuts the handler down during a turn: the
// turn is cancelled, its session closed, the stream ends, and new clients
// are refused with 503.
func TestHTTPCloseEndsEverything(t *testing.T) {
	v := acptest.Load(t)
	started := make(chan struct{}, 1)
	a := &scriptAdapter{turn: func(ctx context.Context, _ *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		started <- struct{}{}
		<-ctx.Done()
		return acp.StopReasonCancelled, nil
	}}
	ts, h := startHTTP(t, a, bridge.HTTPOptions{})
	c := newClient(t, ts.URL, "client_id", v)
	c.start()
	sid := c.newSession()
	c.call("session/prompt", prompt(sid))
	<-started
	c.mu.Lock()
	r := c.readers[0]
	c.mu.Unlock()
	h.Close()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end at shutdown")
	}
	if got := a.closedSessions(); len(got) != 1 {
		t.Errorf("sessions closed: %v", got)
	}
	late := newClient(t, ts.URL, "client_id", v)
	if st, _ := late.open("", ""); st != http.StatusServiceUnavailable {
		t.Errorf("new client after shutdown: %d, want 503", st)
	}
}

// TestHTTPConnectionLimit refuses one connection too many with 503.
func TestHTTPConnectionLimit(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{MaxConnections: 1})
	newClient(t, ts.URL, "client_id", v).start()
	for _, shape := range shapes() {
		c := newClient(t, ts.URL, shape, v)
		st, body := c.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`), "")
		if st != http.StatusServiceUnavailable || !strings.Contains(body, "too many connections") {
			t.Errorf("%s: second connection got %d %q, want 503", shape, st, body)
		}
	}
}

// TestServeListenerNeedsTokenOffLoopback refuses to serve a non-loopback
// address without a token.
func TestServeListenerNeedsTokenOffLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	err = bridge.New(&scriptAdapter{}, bridge.Options{}).ServeListener(t.Context(), ln, bridge.HTTPOptions{})
	if err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("ServeListener on %s without a token: %v", ln.Addr(), err)
	}
}

// TestHTTPOversizedBodyGets413 POSTs a body far over the limit over
// loopback and expects the client to read its 413. A client that sends its
// whole body before it reads (Python's http.client does) got a broken pipe
// or a reset instead: the bridge closed the connection while the body was
// still coming (an 80 MB POST to the default 16 MiB limit did; the limit is
// smaller here to keep the test fast). The net/http client, which reads
// while it sends, is checked too, with a declared length and chunked.
func TestHTTPOversizedBodyGets413(t *testing.T) {
	const size = 32 << 20
	ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{MaxBodySize: 1 << 20})
	body := func() io.Reader {
		return io.LimitReader(filler{bytes.Repeat([]byte("x"), 64<<10)}, size)
	}
	tests := []struct {
		name string
		post func(t *testing.T) (status int, reason string, err error)
	}{
		{"sends all, then reads", func(t *testing.T) (int, string, error) {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			head := fmt.Sprintf("POST /acp/rpc?client_id=big HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Content-Length: %d\r\n\r\n", ts.Listener.Addr(), size)
			if _, err := io.Copy(conn, io.MultiReader(strings.NewReader(head), body())); err != nil {
				return 0, "", err
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return 0, "", err
			}
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b), nil
		}},
		// curl waits for 100 Continue before it sends a large body, and
		// stops when a final answer comes instead, unless that answer is
		// unfinished. The answer must be whole before the body comes (and
		// before the bridge stops waiting for it, after 10 s).
		{"expects 100-continue, sends nothing", func(t *testing.T) (int, string, error) {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "POST /acp/rpc?client_id=big HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", ts.Listener.Addr(), size)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return 0, "", err
			}
			b, err := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b), err
		}},
		{"net/http, content-length", func(t *testing.T) (int, string, error) { return postBig(t, ts, body(), size) }},
		{"net/http, chunked", func(t *testing.T) (int, string, error) { return postBig(t, ts, body(), -1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, reason, err := tt.post(t)
			if err != nil || status != http.StatusRequestEntityTooLarge || !strings.Contains(reason, "limit") {
				t.Fatalf("POST of %d bytes: %d %q, %v; want 413 naming the limit", size, status, reason, err)
			}
		})
	}
}

// postBig POSTs body with the net/http client, declaring length unless it
// is negative.
func postBig(t *testing.T, ts *httptest.Server, body io.Reader, length int64) (int, string, error) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/acp/rpc?client_id=big", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = length
	resp, err := ts.Client().Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// filler reads as an endless run of its block's bytes.
type filler struct{ block []byte }

func (f filler) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], f.block)
	}
	return n, nil
}
