package bridge

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// HTTPOptions configure ACP over HTTP. The zero value is usable: loopback
// only, no token, the defaults below.
type HTTPOptions struct {
	// Token, when set, is required from every request as
	// "Authorization: Bearer TOKEN". It is required to serve anything but a
	// loopback address.
	Token string
	// AllowedHosts are host names (without port) accepted in the Host header
	// besides IP literals and "localhost", for example the public name of a
	// reverse proxy that forwards its Host header.
	AllowedHosts []string
	// AllowedOrigins are browser origins ("https://ide.example.com") allowed
	// to call the bridge besides its own; they also get CORS headers.
	AllowedOrigins []string
	// MaxBodySize bounds one POSTed message in bytes (default 16 MiB); a
	// larger body is answered 413.
	MaxBodySize int64
	// MaxConnections bounds the open ACP connections (default 100); one more
	// is answered 503.
	MaxConnections int
	// IdleTimeout ends a connection that has had no open stream and no
	// request for that long (default 5 minutes), stopping its sessions.
	IdleTimeout time.Duration
	// MaxBuffered is how many bytes of messages not yet sent each stream
	// keeps while its client is away (default 4 MiB). Older ones are
	// dropped and the client is told when it comes back. Of the messages
	// already sent, the newest 256 KiB are kept for a reconnect with
	// Last-Event-ID.
	MaxBuffered int
	// KeepAlive is the interval of SSE comment lines on an idle stream
	// (default 15 s), so proxies keep it open and dead peers are noticed.
	KeepAlive time.Duration
	// WriteTimeout bounds one write to a stream (default 30 s); a client that
	// stops reading loses its stream, not the connection.
	WriteTimeout time.Duration
}

func (o *HTTPOptions) fill() {
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = 16 << 20
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = 100
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = 4 << 20
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
}

// Paths of the two wire shapes served. The first follows the ACP
// Streamable HTTP draft (one endpoint; Acp-Connection-Id and Acp-Session-Id
// headers); the other two are the client_id contract (POST one message, GET
// one SSE stream of everything for that client).
const (
	pathStreamable = "/acp"
	pathRPC        = "/acp/rpc"
	pathSSE        = "/acp/sse"
)

// shape says which wire shape a connection was opened with; the two keep
// their connection ids apart.
type shape uint8

const (
	shapeContract shape = iota
	shapeStreamable
)

func (s shape) String() string {
	if s == shapeStreamable {
		return "streamable"
	}
	return "client_id"
}

type connKey struct {
	shape shape
	id    string
}

// HTTPHandler serves ACP over HTTP for one Server. Each client connection
// (a client_id, or an Acp-Connection-Id) is one ACP connection with its own
// sessions, exactly as one stdio editor is; ids from one mean nothing on
// another. It is an http.Handler; Close ends every connection.
type HTTPHandler struct {
	srv       *Server
	opts      HTTPOptions
	log       zerolog.Logger
	tokenHash [sha256.Size]byte
	ctx       context.Context // parent of every connection; cancelled once Close has ended them
	cancel    context.CancelFunc
	wg        sync.WaitGroup // one per connection's serve goroutine

	mu     sync.Mutex
	conns  map[connKey]*httpConn // guarded by mu; connections not yet ended
	live   int                   // guarded by mu; connections whose serve has not returned
	closed bool                  // guarded by mu; no new connections once set
}

// NewHTTPHandler returns a handler serving ACP over HTTP with s. Defaults
// of opts are filled in here. The caller must call Close.
func (s *Server) NewHTTPHandler(opts HTTPOptions) *HTTPHandler {
	opts.fill()
	h := &HTTPHandler{
		srv:   s,
		opts:  opts,
		log:   s.opts.Logger.With().Str("transport", "http").Logger(),
		conns: make(map[connKey]*httpConn),
	}
	h.tokenHash = sha256.Sum256([]byte(opts.Token))
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h
}

// ServeHTTP checks who is asking (Host, Origin, token) and routes the
// request to one of the two wire shapes.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.admit(w, r) {
		return
	}
	switch r.URL.Path {
	case pathStreamable:
		h.serveStreamable(w, r)
	case pathRPC:
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return
		}
		h.contractPost(w, r)
	case pathSSE:
		switch r.Method {
		case http.MethodGet:
			h.contractGet(w, r)
		case http.MethodDelete:
			h.contractDelete(w, r)
		default:
			methodNotAllowed(w, "GET, DELETE")
		}
	default:
		httpError(w, http.StatusNotFound, "not found: ACP is served at /acp (Streamable HTTP) and /acp/rpc, /acp/sse (client_id)")
	}
}

// Close ends every connection the way stdio ends at the end of its input:
// open turns are cancelled, every session is closed (stopping its
// processes), and every stream is closed after what is queued on it. It
// waits for all of that and is idempotent. Requests after Close are
// answered 503.
func (h *HTTPHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	conns := make([]*httpConn, 0, len(h.conns))
	for _, c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.end("shutdown")
	}
	h.wg.Wait()
	h.cancel()
	return nil
}

// errTooManyConnections and errShuttingDown are why a connection was not
// opened; both are answered 503.
var (
	errTooManyConnections = errors.New("too many connections")
	errShuttingDown       = errors.New("the bridge is shutting down")
)

// lookup returns the open connection with key k, or nil.
func (h *HTTPHandler) lookup(k connKey) *httpConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conns[k]
}

// open returns the open connection with key k, starting one (and its ACP
// connection) when there is none; created says which.
func (h *HTTPHandler) open(k connKey) (c *httpConn, created bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.conns[k]; c != nil {
		return c, false, nil
	}
	switch {
	case h.closed:
		return nil, false, errShuttingDown
	case h.live >= h.opts.MaxConnections:
		return nil, false, fmt.Errorf("%w (limit %d)", errTooManyConnections, h.opts.MaxConnections)
	}
	c = newHTTPConn(h, k)
	h.conns[k] = c
	h.live++
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		err := h.srv.serve(h.ctx, c, c.log)
		h.forget(c)
		h.mu.Lock()
		h.live--
		h.mu.Unlock()
		c.log.Info().AnErr("error", err).Msg("connection closed")
	}()
	c.log.Info().Msg("connection opened")
	return c, true, nil
}

// forget removes c from the table, so its id is unknown from now on (or
// names a new connection).
func (h *HTTPHandler) forget(c *httpConn) {
	h.mu.Lock()
	if h.conns[c.key] == c {
		delete(h.conns, c.key)
	}
	h.mu.Unlock()
}

// openStatus answers a failure of open.
func openStatus(w http.ResponseWriter, err error) {
	w.Header().Set("Retry-After", "5")
	httpError(w, http.StatusServiceUnavailable, err.Error())
}

// ServeListener serves ACP over HTTP on ln until ctx is done, then shuts
// down: every connection is ended (turns cancelled, sessions closed,
// streams closed after what is queued), then the HTTP server stops. A
// listener on anything but a loopback address needs opts.Token.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Token == "" && !isLoopbackAddr(ln.Addr()) {
		return fmt.Errorf("serving %s: a token is required on a non-loopback address", ln.Addr())
	}
	h := s.NewHTTPHandler(opts)
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          newStdLogger(h.log),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
		served = nil
	}
	h.Close()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil {
		hs.Close()
	}
	if served != nil {
		<-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// isLoopbackAddr reports whether a listener address is a loopback one.
func isLoopbackAddr(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// httpError answers with a status and a plain-text reason.
func httpError(w http.ResponseWriter, status int, reason string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintln(w, reason)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	httpError(w, http.StatusMethodNotAllowed, "method not allowed (use "+allow+")")
}

// logWriter turns the HTTP server's own log lines (TLS handshake errors,
// bad requests) into debug entries of the bridge's logger.
type logWriter struct{ l zerolog.Logger }

func (z logWriter) Write(p []byte) (int, error) {
	z.l.Debug().Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}

func newStdLogger(l zerolog.Logger) *log.Logger { return log.New(logWriter{l}, "", 0) }
