package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// httpConn is one HTTP client's ACP connection, seen by Server.serve as a
// jsonrpc.Stream: Read returns the messages the client POSTs, Write queues
// the bridge's messages on the client's SSE streams. A client_id connection
// has one stream for everything; a Streamable HTTP connection has a
// connection stream plus one stream per session, and routes each message
// the way the ACP TypeScript SDK's server does (see route).
type httpConn struct {
	h     *HTTPHandler
	key   connKey
	log   zerolog.Logger
	trace func(in bool, msg []byte)
	in    chan []byte   // unbuffered; POSTed messages on their way to Read
	eof   chan struct{} // closed by end: Read reports io.EOF
	main  *outbox       // client_id: every message; Streamable HTTP: the connection stream

	endOnce sync.Once

	mu       sync.Mutex
	sessions map[string]*outbox     // guarded by mu; Streamable HTTP session streams
	routes   map[string]string      // guarded by mu; client request id -> session whose stream gets the answer ("" = connection)
	asked    map[string]string      // guarded by mu; bridge request id -> session whose stream carried it
	initial  map[string]chan []byte // guarded by mu; initialize id -> the POST waiting for the answer
	active   int                    // guarded by mu; open streams and requests in progress
	idleGen  uint64                 // guarded by mu; invalidates idle timers armed before
	idle     *time.Timer            // guarded by mu; runs while active == 0
	closed   bool                   // guarded by mu; set by Close
}

var _ jsonrpc.Stream = (*httpConn)(nil)

// errConnEnded answers a request for a connection that ended meanwhile.
var errConnEnded = errors.New("connection ended")

// maxSessionStreams bounds the session streams a client can make a
// Streamable HTTP connection hold by opening them.
const maxSessionStreams = 1024

func newHTTPConn(h *HTTPHandler, k connKey) *httpConn {
	c := &httpConn{
		h:        h,
		key:      k,
		log:      h.log.With().Str("shape", k.shape.String()).Str("client", k.id).Logger(),
		in:       make(chan []byte),
		eof:      make(chan struct{}),
		main:     newOutbox(h.opts.MaxBuffered, false),
		sessions: make(map[string]*outbox),
		routes:   make(map[string]string),
		asked:    make(map[string]string),
		initial:  make(map[string]chan []byte),
	}
	if t := h.srv.opts.Trace; t != nil {
		c.trace = t.EditorConn(k.id)
	}
	c.mu.Lock()
	c.armIdle()
	c.mu.Unlock()
	return c
}

// Read returns the next message the client POSTed.
func (c *httpConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case msg := <-c.in:
		if c.trace != nil {
			c.trace(true, msg)
		}
		return msg, nil
	case <-c.eof:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Write queues one message for the client; it never waits for the client.
func (c *httpConn) Write(_ context.Context, msg []byte) error {
	data, err := compactCopy(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return errConnEnded
	}
	if c.trace != nil {
		c.trace(false, data)
	}
	if c.key.shape == shapeContract {
		c.main.push(data)
		return nil
	}
	c.route(data)
	return nil
}

// compactCopy returns msg, copied (the caller may reuse its buffer), with
// any line breaks removed: an SSE data line must not contain one.
func compactCopy(msg []byte) ([]byte, error) {
	if bytes.ContainsAny(msg, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, msg); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return bytes.Clone(msg), nil
}

// Close ends the connection and closes its streams: receivers get what is
// queued, then the end. It is idempotent.
func (c *httpConn) Close() error {
	c.end("closed")
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.idle != nil {
		c.idle.Stop()
	}
	c.main.close()
	for _, o := range c.sessions {
		o.close()
	}
	return nil
}

// end makes Read report the end of input, which shuts the ACP connection
// down (turns cancelled, sessions closed), and makes the connection's id
// unknown to new requests.
func (c *httpConn) end(why string) {
	c.endOnce.Do(func() {
		close(c.eof)
		c.h.forget(c)
		c.log.Debug().Str("why", why).Msg("ending connection")
	})
}

// deliver hands one POSTed message to Read.
func (c *httpConn) deliver(ctx context.Context, msg []byte) error {
	select {
	case c.in <- msg:
		return nil
	case <-c.eof:
		return errConnEnded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// hold marks the connection in use (an open stream or a request); it is
// idle, and its idle timer runs, only while nothing holds it.
func (c *httpConn) hold() {
	c.mu.Lock()
	c.active++
	c.idleGen++
	if c.idle != nil {
		c.idle.Stop()
		c.idle = nil
	}
	c.mu.Unlock()
}

// release undoes hold.
func (c *httpConn) release() {
	c.mu.Lock()
	c.active--
	if c.active == 0 && !c.closed {
		c.armIdle()
	}
	c.mu.Unlock()
}

// armIdle starts the idle timer. Called with mu held.
func (c *httpConn) armIdle() {
	c.idleGen++
	gen, d := c.idleGen, c.h.opts.IdleTimeout
	c.idle = time.AfterFunc(d, func() {
		c.mu.Lock()
		expired := c.idleGen == gen && c.active == 0
		c.mu.Unlock()
		if expired {
			c.log.Info().Dur("idle", d).Msg("closing idle connection")
			c.end("idle")
		}
	})
}

// head is what the bridge needs to know of a JSON-RPC message to route it.
// A message that is not an object, or whose fields have the wrong types,
// decodes partially; the Conn answers it properly.
type head struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
	} `json:"params"`
}

func parseHead(data []byte) (head, error) {
	var m head
	err := json.Unmarshal(data, &m)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		err = nil
	}
	return m, err
}

// isResponse reports a response (an id and no method).
func (m head) isResponse() bool { return m.Method == "" && idKey(m.ID) != "" }

// isCall reports a request that expects an answer.
func (m head) isCall() bool { return m.Method != "" && idKey(m.ID) != "" }

// idKey is a canonical map key for a JSON-RPC id: strings and numbers
// never collide, and 1 and 1.0 are the same. Null or absent is "".
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s:" + s
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n:" + strconv.FormatInt(n, 10)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ""
	}
	if f == float64(int64(f)) {
		return "n:" + strconv.FormatInt(int64(f), 10)
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
}

// route queues one message of a Streamable HTTP connection on its stream:
// the answer to initialize goes back in its POST's body; other answers go
// where the request came from (its session's stream, or the connection
// stream); requests and notifications that name a session go to that
// session's stream, others to the connection stream.
func (c *httpConn) route(data []byte) {
	m, err := parseHead(data)
	if err != nil {
		c.main.push(data)
		return
	}
	key := idKey(m.ID)
	c.mu.Lock()
	o := c.main
	if m.Method == "" {
		if ch, ok := c.initial[key]; ok && key != "" {
			delete(c.initial, key)
			c.mu.Unlock()
			ch <- data
			return
		}
		if sid := c.routes[key]; sid != "" {
			o = c.sessionStream(sid)
		}
		delete(c.routes, key)
	} else {
		if sid := m.Params.SessionID; sid != "" {
			o = c.sessionStream(sid)
		}
		if key != "" {
			c.asked[key] = m.Params.SessionID
		}
	}
	c.mu.Unlock()
	o.push(data)
}

// sessionStream returns the stream of session sid, making it if needed.
// Called with mu held.
func (c *httpConn) sessionStream(sid string) *outbox {
	o := c.sessions[sid]
	if o == nil {
		o = newOutbox(c.h.opts.MaxBuffered, true)
		if c.closed {
			o.close()
		}
		c.sessions[sid] = o
	}
	return o
}

// expectInitial registers the POST waiting for the answer to initialize.
func (c *httpConn) expectInitial(key string) <-chan []byte {
	ch := make(chan []byte, 1)
	c.mu.Lock()
	c.initial[key] = ch
	c.mu.Unlock()
	return ch
}
