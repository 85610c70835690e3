package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// harness connects a Conn to a scripted peer (the editor) over two pipes.
// The peer is itself a stdio stream with a fixed framing, so tests send and
// receive whole messages; sendRaw bypasses the peer's framing.
type harness struct {
	t    *testing.T
	conn *Conn
	peer *stdio
	raw  *io.PipeWriter // peer -> conn, unframed

	mu       sync.Mutex
	internal []error // OnInternalError reports; guarded by mu
}

// newHarness starts a Conn with opts (OnInternalError is set by the
// harness) and a peer using framing f. It is closed at test cleanup.
func newHarness(t *testing.T, f framing, opts Options, sopts StdioOptions) *harness {
	t.Helper()
	inR, inW := io.Pipe()   // peer -> conn
	outR, outW := io.Pipe() // conn -> peer
	h := &harness{t: t, raw: inW}
	opts.OnInternalError = func(err error) {
		h.mu.Lock()
		h.internal = append(h.internal, err)
		h.mu.Unlock()
	}
	h.conn = NewConn(context.Background(), NewStdio(inR, outW, sopts), opts)
	h.peer = newStdio(outR, inW, StdioOptions{MaxMessageSize: 1 << 30}, f)
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	if err := h.conn.Close(); err != nil {
		h.t.Errorf("Conn.Close: %v", err)
	}
	_ = h.peer.Close()
}

// send writes one framed message from the peer.
func (h *harness) send(msg string) {
	h.t.Helper()
	if err := h.peer.Write(context.Background(), []byte(msg)); err != nil {
		h.t.Fatalf("peer write: %v", err)
	}
}

// sendRaw writes bytes from the peer without framing.
func (h *harness) sendRaw(b []byte) {
	h.t.Helper()
	if _, err := h.raw.Write(b); err != nil {
		h.t.Fatalf("peer raw write: %v", err)
	}
}

// recv reads the next message the Conn wrote.
func (h *harness) recv() []byte {
	h.t.Helper()
	msg, err := h.peer.Read(context.Background())
	if err != nil {
		h.t.Fatalf("peer read: %v", err)
	}
	return msg
}

// expect reads the next message and compares it with want semantically.
func (h *harness) expect(want string) {
	h.t.Helper()
	assertJSON(h.t, h.recv(), want)
}

// ping checks that the Conn still serves: the handlers used with the
// harness answer "ping" with "pong".
func (h *harness) ping(id int) {
	h.t.Helper()
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"pong"}`, id))
}

// internalErrors returns what OnInternalError received so far.
func (h *harness) internalErrors() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.internal...)
}

// handlerMap builds a Handler from per-method funcs; "ping" answers
// "pong" unless overridden, and unknown methods are method-not-found.
func handlerMap(m map[string]Handler) Handler {
	return func(ctx context.Context, req *Request) (any, error) {
		if h, ok := m[req.Method]; ok {
			return h(ctx, req)
		}
		if req.Method == "ping" {
			return "pong", nil
		}
		return nil, fmt.Errorf("%w: %s", ErrMethodNotFound, req.Method)
	}
}

// assertJSON compares got and want as JSON values.
func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("message mismatch\n got: %s\nwant: %s", got, want)
	}
}

// assertErrorResponse checks that msg is an error response with the given
// id and code, whose message starts with msgPrefix.
func assertErrorResponse(t *testing.T, msg []byte, id ID, code int64, msgPrefix string) {
	t.Helper()
	m, err := DecodeMessage(msg)
	if err != nil {
		t.Fatalf("decoding %s: %v", msg, err)
	}
	r, ok := m.(*Response)
	if !ok || r.Error == nil {
		t.Fatalf("got %s, want an error response", msg)
	}
	if r.ID != id || r.Error.Code != code || !strings.HasPrefix(r.Error.Message, msgPrefix) {
		t.Fatalf("got %s, want id %v, code %d, message starting %q", msg, id, code, msgPrefix)
	}
}

// errorsContain reports whether any of errs has text containing sub.
func errorsContain(errs []error, sub string) bool {
	for _, err := range errs {
		if strings.Contains(err.Error(), sub) {
			return true
		}
	}
	return false
}

// chanStream is a Stream for tests that need control over failures: Read
// takes messages from in (io.EOF when it is closed), Write calls write.
type chanStream struct {
	in     chan []byte
	write  func(msg []byte) error
	closed chan struct{}
	once   sync.Once
}

func newChanStream(write func([]byte) error) *chanStream {
	return &chanStream{in: make(chan []byte), write: write, closed: make(chan struct{})}
}

func (s *chanStream) Read(ctx context.Context) ([]byte, error) {
	select {
	case m, ok := <-s.in:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-s.closed:
		return nil, errors.New("closed")
	}
}

func (s *chanStream) Write(ctx context.Context, msg []byte) error { return s.write(msg) }

func (s *chanStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}
