package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
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
	// TerminalAuth are logins the editor runs itself, in a terminal, by
	// starting the bridge again with a method's args and env (ACP
	// AuthMethodTerminal). They are offered, after the adapter's own auth
	// methods, only to a client that enabled terminal auth, and are never
	// passed to authenticate.
	TerminalAuth []acp.AuthMethodTerminal
}

// Server serves ACP for one Adapter. One Server can serve many connections
// (stdio serves one; HTTP serves one per client); each connection has its own
// sessions, and ids from one connection mean nothing on another.
type Server struct {
	adapter Adapter
	opts    Options
	info    acp.AgentInfo
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

func (s *Server) adapterInfo() acp.AgentInfo {
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
	// A stop signal (ctx done) ends the input as EOF does, where the input
	// can be woken (a pipe; not a terminal), so that both shut down alike:
	// every request already read is answered.
	in := &stopInput{r: r, ctx: ctx}
	wakes := false
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(time.Time{}) == nil {
		wakes = true
		defer context.AfterFunc(ctx, func() { _ = d.SetReadDeadline(time.Now()) })()
	}
	st := jsonrpc.NewStdio(in, w, jsonrpc.StdioOptions{MaxMessageSize: s.opts.MaxMessageSize, Trace: trace})
	return s.serveConn(ctx, st, s.opts.Logger, wakes)
}

// stopInput is the editor's input, ended (io.EOF) by the read deadline
// that ServeStdio sets when ctx is done.
type stopInput struct {
	r   io.Reader
	ctx context.Context
}

func (in *stopInput) Read(b []byte) (int, error) {
	n, err := in.r.Read(b)
	if err != nil && in.ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF
	}
	return n, err
}

// Close closes the input, when it can be closed.
func (in *stopInput) Close() error {
	if c, ok := in.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// serve runs one connection over st until it ends, then tears it down. log
// carries what tells this connection from others (the HTTP client id).
func (s *Server) serve(ctx context.Context, st jsonrpc.Stream, log zerolog.Logger) error {
	return s.serveConn(ctx, st, log, false)
}

// serveConn is serve; inputEnds says that st's input ends (EOF) soon after
// ctx is done.
func (s *Server) serveConn(ctx context.Context, st jsonrpc.Stream, log zerolog.Logger, inputEnds bool) error {
	c := s.newConnection(log)
	// The read loop starts inside NewConn; handlers wait for c.conn to be
	// set before they use it (see ready).
	// The Conn outlives ctx: a stop signal (ctx done) must still let the
	// open requests be answered, as stdin EOF does, so the Conn is closed
	// below, after the turns are cancelled and answered, not by ctx.
	c.conn = jsonrpc.NewConn(context.WithoutCancel(ctx), st, jsonrpc.Options{
		Handler:         c.handle,
		Preempt:         c.preempt,
		Sync:            func(m string) bool { return m == acp.MethodInitialize },
		OnInternalError: func(err error) { c.log.Warn().Err(err).Msg("json-rpc") },
	})
	close(c.ready)
	info := s.adapterInfo()
	c.log.Info().Str("adapter", info.Name).Str("version", s.opts.Version).Msg("serving ACP")
	eof := false
	select {
	case <-c.conn.Done():
		eof = true
	case <-ctx.Done():
	}
	// The editor has gone (EOF) or the bridge was told to stop. Running
	// turns end now, but requests already read still get their answers: a
	// client may pipe its requests and close stdin at once. The wait is
	// bounded, so the process still exits within 2 s.
	turns := c.cancelTurns()
	drained := make(chan struct{})
	go func() {
		c.conn.Wait()
		close(drained)
	}()
	// After a stop signal an input that cannot be ended keeps the read loop
	// running, so the wait is for the cancelled turns' answers instead.
	var answered <-chan struct{} = drained
	if !eof && !inputEnds {
		answered = allClosed(turns)
	}
	if !waitFor(answered, drainTimeout) {
		c.log.Warn().Dur("after", drainTimeout).Msg("requests still running at shutdown are cancelled")
	}
	n := c.shutdown()
	// Requests that were waiting on a session (one whose CLI was still
	// starting, say) end now that it is closed: let them answer before the
	// Conn refuses to write.
	if answered == drained && !waitFor(drained, closeAnswerTimeout) {
		c.log.Warn().Dur("after", closeAnswerTimeout).Msg("requests unanswered at shutdown")
	}
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
	initialized bool                            // guarded by mu
	clientCaps  acp.ClientCapabilities          // guarded by mu; set once by initialize
	initParams  json.RawMessage                 // guarded by mu; set once by initialize
	authParams  json.RawMessage                 // guarded by mu; the last authenticate a Forwarder's agent accepted, nil after logout
	sessions    map[acp.SessionID]*session      // guarded by mu
	children    map[acp.SessionID]acp.SessionID // guarded by mu; child session -> the session that owns it (children.go)
	closing     bool                            // guarded by mu; no new sessions once set

	encodeBufs sync.Pool // of *[]byte, for notifyUpdate
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
// so a cancel can never wait behind the prompt it cancels. It also notes
// each session/prompt as it is read, so that a cancel read after it cancels
// it even if its goroutine has not begun the turn yet. It must not block.
func (c *connection) preempt(ctx context.Context, req *jsonrpc.Request) bool {
	<-c.ready // closed right after NewConn returns: a wait of microseconds at most
	if req.Method == acp.MethodSessionPrompt && req.IsCall() {
		if s := c.session(sessionIDOf(req.Params)); s != nil {
			s.arrive(req.ID)
		}
		return false
	}
	if req.Method != acp.MethodSessionCancel || req.IsCall() {
		return false
	}
	var n acp.CancelNotification
	if err := json.Unmarshal(req.Params, &n); err != nil || n.SessionID == "" {
		c.log.Warn().Msg("session/cancel without a valid sessionId ignored")
		return true
	}
	if s := c.session(n.SessionID); s != nil {
		if _, idle := s.cancelBy(req.Params); idle {
			s.cancelIdle(ctx, req.Params)
		}
	} else if !c.cancelChild(ctx, n.SessionID, req.Params) {
		c.log.Debug().Str("session", string(n.SessionID)).Msg("session/cancel for unknown session ignored")
	}
	return true
}

// drainTimeout bounds how long shutdown lets requests already read finish.
const drainTimeout = 500 * time.Millisecond

// closeAnswerTimeout bounds how long shutdown waits, once the sessions are
// closed, for the requests they held up to be answered.
const closeAnswerTimeout = 200 * time.Millisecond

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// cancelTurns ends every running turn (answered "cancelled") and withdraws
// pending permission requests, without closing the sessions. It returns the
// done channels of the turns it cancelled.
func (c *connection) cancelTurns() []<-chan struct{} {
	c.mu.Lock()
	all := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		all = append(all, s)
	}
	c.mu.Unlock()
	var done []<-chan struct{}
	for _, s := range all {
		if t := s.cancel(); t != nil {
			done = append(done, t.done)
		}
	}
	return done
}

// allClosed returns a channel closed once every channel in chs is.
func allClosed(chs []<-chan struct{}) <-chan struct{} {
	all := make(chan struct{})
	go func() {
		for _, ch := range chs {
			<-ch
		}
		close(all)
	}()
	return all
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
	clear(c.children)
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
