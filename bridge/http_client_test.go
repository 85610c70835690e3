package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// frame is one message a client read from an SSE stream (or, for
// Streamable HTTP initialize, from the POST answer).
type frame struct {
	event string // SSE event id, "" when the event had none
	raw   []byte
	m     map[string]any
}

func (f frame) method() string { s, _ := f.m["method"].(string); return s }

func (f frame) params() map[string]any { p, _ := f.m["params"].(map[string]any); return p }

func (f frame) result() map[string]any { r, _ := f.m["result"].(map[string]any); return r }

func (f frame) sessionID() string { s, _ := f.params()["sessionId"].(string); return s }

// isAnswer reports a response to the client's request id.
func (f frame) isAnswer(id int) bool {
	n, ok := f.m["id"].(float64)
	return ok && f.method() == "" && int(n) == id
}

// sseReader reads one SSE response into frames until the body ends or the
// reader is stopped.
type sseReader struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the body has ended
}

func (r *sseReader) stop() {
	r.cancel()
	<-r.done
}

// shapes names the two wire shapes, for table tests.
func shapes() []string { return []string{"client_id", "streamable"} }

// httpClient is a test ACP client over one of the bridge's HTTP shapes. It
// merges every stream it reads into frames and checks every frame against
// the ACP schema.
type httpClient struct {
	t      testing.TB
	base   string
	shape  string
	id     string // client_id, or Acp-Connection-Id once initialized
	header http.Header
	frames chan frame
	check  *acptest.Checker
	nextID int

	mu       sync.Mutex
	readers  []*sseReader
	sessions map[string]bool // guarded by mu; session streams opened
	seen     map[string]bool // guarded by mu; SSE event ids received
}

func newClient(t testing.TB, base, shape string, v *acptest.Validator) *httpClient {
	c := &httpClient{t: t, base: base, shape: shape, header: http.Header{}, frames: make(chan frame, 4096),
		check: v.NewChecker(), sessions: map[string]bool{}, seen: map[string]bool{}}
	if shape == "client_id" {
		c.id = fmt.Sprintf("c-%p", c)
	}
	t.Cleanup(c.stopAll)
	return c
}

func (c *httpClient) stopAll() {
	c.mu.Lock()
	rs := c.readers
	c.readers = nil
	c.mu.Unlock()
	for _, r := range rs {
		r.stop()
	}
}

// url is the endpoint for a client_id path ("rpc", "sse") or Streamable HTTP.
func (c *httpClient) url(path string) string {
	if c.shape == "client_id" {
		return c.base + "/acp/" + path + "?client_id=" + c.id
	}
	return c.base + "/acp"
}

// request sends one HTTP request with the client's headers.
func (c *httpClient) request(ctx context.Context, method, url string, body []byte, hdr http.Header) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp
}

// open GETs a stream (the client's, or a session's for Streamable HTTP)
// and reads it into frames. It returns the status; only a 200 is read.
func (c *httpClient) open(session, lastID string) (int, *sseReader) {
	c.t.Helper()
	hdr := http.Header{"Accept": {"text/event-stream"}}
	if c.shape == "streamable" {
		hdr.Set("Acp-Connection-Id", c.id)
		if session != "" {
			hdr.Set("Acp-Session-Id", session)
		}
	}
	if lastID != "" {
		hdr.Set("Last-Event-ID", lastID)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp := c.request(ctx, http.MethodGet, c.url("sse"), nil, hdr)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return resp.StatusCode, nil
	}
	r := &sseReader{cancel: cancel, done: make(chan struct{})}
	go c.read(ctx, resp.Body, r.done)
	c.mu.Lock()
	c.readers = append(c.readers, r)
	if session != "" {
		c.sessions[session] = true
	}
	c.mu.Unlock()
	return resp.StatusCode, r
}

// read parses SSE events from body into frames.
func (c *httpClient) read(ctx context.Context, body io.ReadCloser, done chan struct{}) {
	defer close(done)
	defer body.Close()
	br := bufio.NewReader(body)
	var id string
	var data []byte
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(line[5:], " ")...)
		case line == "" && data != nil:
			c.deliver(ctx, frame{event: id, raw: data})
			id, data = "", nil
		}
		if err != nil {
			return
		}
	}
}

func (c *httpClient) deliver(ctx context.Context, f frame) {
	if err := json.Unmarshal(f.raw, &f.m); err != nil {
		c.t.Errorf("stream carried a message that is not JSON: %q", f.raw)
		return
	}
	c.mu.Lock()
	again := f.event != "" && c.seen[f.event]
	if f.event != "" {
		c.seen[f.event] = true
	}
	c.mu.Unlock()
	// A message delivered again after a reconnect was checked the first time.
	if !again && !strings.HasPrefix(f.method(), "_") {
		if err := c.check.AgentFrame(f.raw); err != nil {
			c.t.Errorf("%s: %v", c.shape, err)
		}
	}
	select {
	case c.frames <- f:
	case <-ctx.Done():
	}
}

// post sends one raw message and returns the status and body.
func (c *httpClient) post(msg []byte, session string) (int, string) {
	c.t.Helper()
	hdr := http.Header{}
	if c.shape == "streamable" && c.id != "" {
		hdr.Set("Acp-Connection-Id", c.id)
		if session != "" {
			hdr.Set("Acp-Session-Id", session)
		}
	}
	c.check.ClientFrame(msg)
	resp := c.request(context.Background(), http.MethodPost, c.url("rpc"), msg, hdr)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if c.shape == "streamable" && resp.StatusCode == http.StatusOK {
		// The answer to initialize comes in the body.
		c.id = resp.Header.Get("Acp-Connection-Id")
		c.deliver(context.Background(), frame{raw: bytes.TrimSpace(body)})
		body = nil
	}
	return resp.StatusCode, string(body)
}

// send posts a message built from v and fails the test unless it is
// accepted. For Streamable HTTP it opens the session's stream first, as
// the TypeScript SDK does.
func (c *httpClient) send(v map[string]any) {
	c.t.Helper()
	msg, _ := json.Marshal(v)
	sid := ""
	if p, ok := v["params"].(map[string]any); ok {
		sid, _ = p["sessionId"].(string)
	}
	c.sendRaw(msg, sid)
}

func (c *httpClient) sendRaw(msg []byte, sid string) {
	c.t.Helper()
	if c.shape == "streamable" && sid != "" {
		c.mu.Lock()
		opened := c.sessions[sid]
		c.mu.Unlock()
		if !opened {
			if st, _ := c.open(sid, ""); st != http.StatusOK {
				c.t.Fatalf("opening the stream of session %s: status %d", sid, st)
			}
		}
	}
	st, body := c.post(msg, sid)
	if st != http.StatusAccepted && st != http.StatusOK {
		c.t.Fatalf("POST %s: status %d: %s", msg, st, body)
	}
}

// call sends a request and returns its id.
func (c *httpClient) call(method string, params any) int {
	c.t.Helper()
	c.nextID++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	return c.nextID
}

func (c *httpClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// respond answers a request of the bridge, on the session it concerns.
func (c *httpClient) respond(req frame, result any) {
	c.t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.m["id"], "result": result})
	c.sendRaw(msg, req.sessionID())
}

// next returns the next frame from any of the client's streams.
func (c *httpClient) next() frame {
	c.t.Helper()
	select {
	case f := <-c.frames:
		return f
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s: no message within 10s", c.shape)
		return frame{}
	}
}

// answer reads until the answer to request id and returns it with the
// frames before it.
func (c *httpClient) answer(id int) (frame, []frame) {
	c.t.Helper()
	var before []frame
	for {
		f := c.next()
		if f.isAnswer(id) {
			if e, ok := f.m["error"]; ok {
				c.t.Fatalf("request %d failed: %v", id, e)
			}
			return f, before
		}
		before = append(before, f)
	}
}

// start initializes the connection (opening the client's stream first for
// client_id, and the connection stream after for Streamable HTTP).
func (c *httpClient) start() {
	c.t.Helper()
	if c.shape == "client_id" {
		if st, _ := c.open("", ""); st != http.StatusOK {
			c.t.Fatalf("GET /acp/sse: status %d", st)
		}
	}
	id := c.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}})
	if c.shape == "streamable" {
		if c.id == "" {
			c.t.Fatal("initialize answer carried no Acp-Connection-Id")
		}
		if st, _ := c.open("", ""); st != http.StatusOK {
			c.t.Fatalf("GET /acp: status %d", st)
		}
	}
	c.answer(id)
}

// newSession opens a session and returns its id.
func (c *httpClient) newSession() string {
	c.t.Helper()
	f, _ := c.answer(c.call("session/new", map[string]any{"cwd": "/home/user/project", "mcpServers": []any{}}))
	sid, _ := f.result()["sessionId"].(string)
	if sid == "" {
		c.t.Fatalf("session/new answer without a sessionId: %s", f.raw)
	}
	return sid
}

// turnLog is what a client saw of one turn.
type turnLog struct {
	stop    string
	updates map[string]int // sessionUpdate kind -> count
	asked   int            // permission requests answered
	frames  []frame
}

// turn runs one prompt to its end, answering every permission request
// with its allow_once option, and checks every message is for sid.
func (c *httpClient) turn(sid, text string) turnLog {
	c.t.Helper()
	id := c.call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": text}}})
	log := turnLog{updates: map[string]int{}}
	for {
		f := c.next()
		log.frames = append(log.frames, f)
		if f.isAnswer(id) {
			log.stop, _ = f.result()["stopReason"].(string)
			return log
		}
		if s := f.sessionID(); s != "" && s != sid {
			c.t.Errorf("%s: message for session %s on the client of session %s: %s", c.shape, s, sid, f.raw)
		}
		switch f.method() {
		case "session/update":
			kind, _ := f.params()["update"].(map[string]any)["sessionUpdate"].(string)
			log.updates[kind]++
		case "session/request_permission":
			log.asked++
			c.respond(f, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": allowOption(f)}})
		}
	}
}

// allowOption is the allow_once option of a permission request.
func allowOption(f frame) string {
	opts, _ := f.params()["options"].([]any)
	for _, o := range opts {
		m, _ := o.(map[string]any)
		if m["kind"] == "allow_once" {
			s, _ := m["optionId"].(string)
			return s
		}
	}
	return ""
}
