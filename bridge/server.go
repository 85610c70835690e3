package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/internal/jsonrpc"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Name and Version are the bridge's own identity, sent as agentInfo.
	Name, Version string
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Trace, if set, receives every JSON-RPC frame read from or written to
	// the editor.
	Trace *Trace
	// MaxMessageSize bounds one incoming message (default 64 MiB).
	MaxMessageSize int
}

// Server serves ACP for one Adapter. One Server can serve many connections
// (stdio serves one; HTTP serves one per client); each connection has its own
// sessions, and ids from one connection mean nothing on another.
type Server struct {
	adapter Adapter
	opts    Options
	info    Info
	once    sync.Once
}

// New returns a Server for a. Defaults are filled in here.
func New(a Adapter, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "acpbridge"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 64 << 20
	}
	return &Server{adapter: a, opts: opts}
}

func (s *Server) adapterInfo() Info {
	s.once.Do(func() { s.info = s.adapter.Info() })
	return s.info
}

// ServeStdio serves one editor on r and w (the process's stdin and stdout)
// until r reaches EOF, the stream breaks or ctx is done. Then every session
// of the connection is cancelled and closed, which stops the processes it
// started. It returns nil on a clean EOF or cancellation.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	var trace func(bool, []byte)
	if s.opts.Trace != nil {
		trace = s.opts.Trace.Editor
	}
	st := jsonrpc.NewStdio(r, w, jsonrpc.StdioOptions{MaxMessageSize: s.opts.MaxMessageSize, Trace: trace})
	return s.serve(ctx, st, s.opts.Logger)
}

// serve runs one connection over st until it ends, then tears it down. log
// carries what tells this connection from others (the HTTP client id).
func (s *Server) serve(ctx context.Context, st jsonrpc.Stream, log zerolog.Logger) error {
	c := s.newConnection(log)
	// The read loop starts inside NewConn; handlers wait for c.conn to be
	// set before they use it (see ready).
	c.conn = jsonrpc.NewConn(ctx, st, jsonrpc.Options{
		Handler:         c.handle,
		Preempt:         c.preempt,
		Sync:            func(m string) bool { return m == acp.MethodInitialize },
		OnInternalError: func(err error) { c.log.Warn().Err(err).Msg("json-rpc") },
	})
	close(c.ready)
	info := s.adapterInfo()
	c.log.Info().Str("adapter", info.Name).Str("version", s.opts.Version).Msg("serving ACP")
	select {
	case <-c.conn.Done():
	case <-ctx.Done():
	}
	// The editor has gone (EOF) or the bridge was told to stop. Running
	// turns end now, but requests already read still get their answers: a
	// client may pipe its requests and close stdin at once. The wait is
	// bounded, so the process still exits within 2 s.
	c.cancelTurns()
	drained := make(chan struct{})
	go func() {
		c.conn.Wait()
		close(drained)
	}()
	t := time.NewTimer(drainTimeout)
	select {
	case <-drained:
	case <-t.C:
		c.log.Warn().Dur("after", drainTimeout).Msg("requests still running at shutdown are cancelled")
	}
	t.Stop()
	n := c.shutdown()
	err := c.conn.Close()
	<-drained // Close waits for the handlers, so this returns at once
	c.log.Info().Int("sessions_closed", n).AnErr("cause", err).Msg("editor connection ended")
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// connection is one editor's ACP connection.
type connection struct {
	srv   *Server
	conn  *jsonrpc.Conn // set once, before ready is closed
	ready chan struct{} // closed once conn is set
	log   zerolog.Logger

	mu          sync.Mutex
	initialized bool                       // guarded by mu
	clientCaps  acp.ClientCapabilities     // guarded by mu; set once by initialize
	initParams  json.RawMessage            // guarded by mu; set once by initialize (passthrough adapters)
	sessions    map[acp.SessionID]*session // guarded by mu
	closing     bool                       // guarded by mu; no new sessions once set
}

func (s *Server) newConnection(log zerolog.Logger) *connection {
	return &connection{
		srv:      s,
		ready:    make(chan struct{}),
		log:      log,
		sessions: make(map[acp.SessionID]*session),
	}
}

// preempt handles session/cancel in the read loop, ahead of any queued work,
// so a cancel can never wait behind the prompt it cancels. It must not block.
func (c *connection) preempt(_ context.Context, req *jsonrpc.Request) bool {
	<-c.ready // closed right after NewConn returns: a wait of microseconds at most
	if req.Method != acp.MethodSessionCancel || req.IsCall() {
		return false
	}
	var n acp.CancelNotification
	if err := json.Unmarshal(req.Params, &n); err != nil || n.SessionID == "" {
		c.log.Warn().Msg("session/cancel without a valid sessionId ignored")
		return true
	}
	if s := c.session(n.SessionID); s != nil {
		s.cancel()
	} else {
		c.log.Debug().Str("session", string(n.SessionID)).Msg("session/cancel for unknown session ignored")
	}
	return true
}

// drainTimeout bounds how long shutdown lets requests already read finish.
const drainTimeout = 500 * time.Millisecond

// cancelTurns ends every running turn (answered "cancelled") and withdraws
// pending permission requests, without closing the sessions.
func (c *connection) cancelTurns() {
	c.mu.Lock()
	all := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		all = append(all, s)
	}
	c.mu.Unlock()
	for _, s := range all {
		s.cancel()
	}
}

// shutdown cancels every turn and closes every session, in parallel. It
// waits for all of them: returning earlier could let the process exit before
// a child's group was killed. Adapters bound their Close (graceful stop, then
// SIGTERM, then SIGKILL), so this cannot hang.
func (c *connection) shutdown() int {
	c.mu.Lock()
	c.closing = true
	all := make([]*session, 0, len(c.sessions))
	for id, s := range c.sessions {
		all = append(all, s)
		delete(c.sessions, id)
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	return len(all)
}

func (c *connection) session(id acp.SessionID) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[id]
}
