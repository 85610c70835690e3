package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Options configure an Adapter. The zero value runs "codex" from PATH.
type Options struct {
	// Path is the Codex executable (default "codex", looked up in PATH).
	Path string
	// Model is the model new threads use; empty means Codex's default.
	Model string
	// Mode is the initial approval preset (ModeReadOnly, ModeAuto,
	// ModeFullAccess); empty means ModeAuto, Codex's own default.
	Mode string
	// ExtraArgs are appended to "codex app-server".
	ExtraArgs []string
	// InstallHint, if set, follows the error of a Path that is not found:
	// how to install Codex or point the bridge at it.
	InstallHint string
	// Env holds extra "KEY=value" entries for Codex's environment
	// (CODEX_HOME, API keys).
	Env []string
	// Launch starts the app-server (default proc.Start). Tests pass an
	// in-process stand-in (proc.InProcess).
	Launch func(ctx context.Context, spec proc.Spec) (proc.Process, error)
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Trace, if set, sees every line written to (toAgent) or read from the
	// app-server.
	Trace func(toAgent bool, line []byte)
	// CancelGrace is how long a cancelled turn waits for Codex's
	// turn/completed after turn/interrupt before it is answered "cancelled"
	// anyway (default time.Second).
	CancelGrace time.Duration
	// StartTimeout bounds the app-server's answer to initialize (default
	// 1 minute).
	StartTimeout time.Duration
	// StopGrace is the grace period of each step of a process stop
	// (default 3s).
	StopGrace time.Duration
	// SpareCwd is the directory of the first spare thread, started with
	// the app-server for the first session/new (see spare); empty means
	// the bridge's working directory. Later spares follow the sessions.
	SpareCwd string
	// NoSpare turns spare threads off: every session/new starts its own.
	NoSpare bool
	// ReadWindow lets a dense stream of the app-server's output gather
	// between reads, up to this long, so that its text deltas reach the
	// editor a batch at a time (see windowed). Zero means
	// DefaultReadWindow with the default Launch (a real app-server on a
	// pipe) and none with another (an in-process stand-in writes in one
	// go anyway, and a replay under testing/synctest must not sleep);
	// negative reads every line as it comes.
	ReadWindow time.Duration
}

// Adapter serves ACP sessions from one `codex app-server`. Its methods are
// safe for concurrent use.
type Adapter struct {
	opts Options
	// lookPath: the default launcher runs a real executable, whose absence
	// is reported with its name.
	lookPath bool
	// ctx lives as long as the adapter: the app-server is started with it,
	// so a request's end never kills it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the app-servers' reader goroutines and warm
	warm   sync.Once

	// startMu serialises starting app-servers. It is never held with mu
	// while waiting for the app-server: route (on its reader goroutine)
	// takes mu, and an app-server talks before it answers initialize.
	startMu sync.Mutex

	mu       sync.Mutex
	srv      *appServer          // guarded by mu; nil before the first start
	gen      int                 // guarded by mu; app-servers started so far
	sessions map[string]*Session // guarded by mu; by thread id
	// children maps the sub-agent threads Codex runs for a session (and
	// for its sub-agents) to that session; guarded by mu (children.go).
	children map[string]*Session
	models   modelList
	spare    *spare // guarded by mu; the thread started ahead, if any
	// pending holds the queues of spare threads Codex has started that no
	// session has yet, by thread id; guarded by mu.
	pending map[string]*queue
	early   early // guarded by mu
	closed  bool  // guarded by mu
}

// appServer is one running `codex app-server`.
type appServer struct {
	// notices are what it said about no thread, for sessions opened later.
	notices notices

	// loginErr is auth-required (-32000) when Codex has no credentials
	// for its model provider: set during start, then by Authenticate and
	// Logout; guarded by Adapter.mu once published.
	loginErr error
	p        proc.Process
	c        *conn
	gen      int
	name     string
}

// The contract's optional interfaces Codex serves: a signature that
// drifts from bridge/acp's fails the build rather than dropping the
// capability.
var (
	_ acp.Adapter       = (*Adapter)(nil)
	_ acp.Authenticator = (*Adapter)(nil)
	_ acp.Loader        = (*Adapter)(nil)
	_ acp.Resumer       = (*Adapter)(nil)
	_ acp.Lister        = (*Adapter)(nil)
	_ acp.Deleter       = (*Adapter)(nil)
	_ acp.Forker        = (*Adapter)(nil)
	_ acp.Session       = (*Session)(nil)
)

// New returns an Adapter; defaults are filled in here.
func New(opts Options) *Adapter {
	if opts.Path == "" {
		opts.Path = "codex"
	}
	lookPath := opts.Launch == nil
	if lookPath {
		opts.Launch = proc.Start
	}
	if opts.Mode == "" {
		opts.Mode = ModeAuto
	}
	if opts.CancelGrace <= 0 {
		opts.CancelGrace = time.Second
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = time.Minute
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 3 * time.Second
	}
	if opts.ReadWindow == 0 && lookPath {
		opts.ReadWindow = DefaultReadWindow
	}
	if opts.SpareCwd == "" {
		opts.SpareCwd, _ = os.Getwd()
	}
	opts.Logger = opts.Logger.With().Str("adapter", "codex").Logger()
	ctx, cancel := context.WithCancel(context.Background())
	return &Adapter{opts: opts, lookPath: lookPath, ctx: ctx, cancel: cancel, sessions: map[string]*Session{},
		children: map[string]*Session{}, pending: map[string]*queue{}}
}

// Info describes Codex: images and embedded context in prompts. It is
// called once, before the bridge answers initialize, so it also starts the
// app-server in the background: Codex takes about 200 ms to answer its own
// initialize, which session/new would otherwise wait for. A failed start
// is reported again by the first session/new.
func (a *Adapter) Info() acp.AgentInfo {
	a.warm.Do(func() {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			srv, err := a.server(a.ctx)
			if err == nil {
				if a.loginError(srv) == nil {
					a.prestartFor(srv, a.opts.SpareCwd, nil)
				}
				_, err = a.models.get(a.ctx, srv)
			}
			if err != nil && a.ctx.Err() == nil {
				a.opts.Logger.Warn().Err(err).Msg("starting codex app-server ahead of the first session")
			}
		}()
	})
	return acp.AgentInfo{Name: "codex", Title: "Codex", AuthMethods: authMethods(),
		Prompt: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
		MCP:    acp.McpCapabilities{HTTP: true},
		// Writable roots of the workspace sandbox (threadConfig).
		AdditionalDirectories: true,
		// turn/steer (steer.go).
		Steering: true}
}

// server returns the running app-server, starting one when there is none
// or the last one died.
func (a *Adapter) server(ctx context.Context) (*appServer, error) {
	a.startMu.Lock()
	defer a.startMu.Unlock()
	a.mu.Lock()
	closed, old := a.closed, a.srv
	a.mu.Unlock()
	if closed {
		return nil, errors.New("codex adapter closed")
	}
	if old != nil {
		select {
		case <-old.c.Done():
			// Its output ended: it exited (or is exiting); reap it. Its
			// error was reported to the turns it ended.
			_ = old.p.Stop(ctx)
		default:
			return old, nil
		}
	}
	srv, err := a.start(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		_ = srv.p.Stop(ctx)
		return nil, errors.New("codex adapter closed")
	}
	a.srv = srv
	return srv, nil
}

// start launches an app-server and completes its handshake. Called with
// a.startMu held.
func (a *Adapter) start(ctx context.Context) (*appServer, error) {
	if a.lookPath {
		if _, err := exec.LookPath(a.opts.Path); err != nil {
			msg := fmt.Sprintf("Codex cannot be started from %q: %v", a.opts.Path, err)
			if a.opts.InstallHint != "" {
				msg += ". " + a.opts.InstallHint
			}
			return nil, errors.New(msg)
		}
	}
	a.mu.Lock()
	a.gen++
	gen := a.gen
	a.mu.Unlock()
	spec := proc.Spec{Name: "codex", Path: a.opts.Path, Args: append([]string{"app-server"}, a.opts.ExtraArgs...),
		Env: a.opts.Env, Logger: a.opts.Logger, Grace: a.opts.StopGrace}
	p, err := a.opts.Launch(a.ctx, spec)
	if err != nil {
		return nil, err
	}
	srv := &appServer{p: p, gen: gen, name: a.opts.Path}
	srv.c = newConn(windowed(p.Stdout(), a.opts.ReadWindow), p.Stdin(), func(m *message) { a.route(srv, m) }, a.opts.Trace)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		srv.c.run()
	}()
	ictx, cancel := context.WithTimeout(ctx, a.opts.StartTimeout)
	defer cancel()
	err = srv.c.Call(ictx, mInitialize, initializeParams{
		ClientInfo:   clientInfo{Name: "acpbridge", Title: "acpbridge", Version: "1"},
		Capabilities: map[string]any{"experimentalApi": true}}, nil)
	if err == nil {
		err = srv.c.Notify(mInitialized, nil)
	}
	if err == nil {
		err = a.readLogin(ictx, srv)
	}
	if err == nil {
		err = a.loginFromEnv(ictx, srv)
	}
	if err != nil {
		p.Stop(context.Background()) //nolint:errcheck // the start error says more
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%s app-server did not answer initialize within %v", a.opts.Path, a.opts.StartTimeout)
		}
		return nil, fmt.Errorf("starting codex app-server: %w%s", err, tail(p))
	}
	return srv, nil
}

func tail(p proc.Process) string {
	if t := p.StderrTail(); t != "" {
		return ": " + t
	}
	return ""
}

// route hands a message from the app-server to the session whose thread it
// concerns. It runs on the reader goroutine and never blocks.
func (a *Adapter) route(srv *appServer, m *message) {
	// gjson, not a decode: this runs for every line, a streamed delta
	// included, and the engine has checked the JSON already.
	var ref struct{ ThreadID string }
	if t := gjson.GetBytes(m.Params, "threadId"); t.Type == gjson.String {
		ref.ThreadID = t.Str
	}
	a.mu.Lock()
	var q *queue
	if s := a.sessionOf(ref.ThreadID); s != nil {
		q = s.q
		if a.adoptLocked(s, m) {
			a.mu.Unlock()
			return
		}
	} else if ref.ThreadID != "" {
		q = a.pending[ref.ThreadID]
		if q == nil && len(m.ID) == 0 {
			a.early.hold(ref.ThreadID, m)
			a.mu.Unlock()
			return
		}
	}
	a.mu.Unlock()
	if q != nil {
		q.push(m)
		return
	}
	if n := noticeOf(m.Method, m.Params); n != nil && len(m.ID) == 0 && ref.ThreadID == "" {
		a.opts.Logger.Info().Str("notice", n.Title).Msg("codex")
		srv.notices.add(*n)
		return
	}
	if len(m.ID) > 0 {
		// A request about no open session (or none at all): nobody can
		// answer it, so say so rather than leave Codex waiting.
		_ = srv.c.ReplyError(m.ID, &rpcError{Code: -32601, Message: "not handled by this client: " + m.Method})
		return
	}
	a.opts.Logger.Debug().Str("method", m.Method).Msg("app-server message for no session")
}

// NewSession starts a thread (and the app-server, the first time).
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	srv, err := a.server(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.loginError(srv); err != nil {
		return nil, err
	}
	s := newSession(a, c, req.Cwd, a.opts.Mode)
	s.cfg = threadConfig(req.McpServers, req.AdditionalDirectories)
	res, q := a.takeSpare(ctx, srv, spareKey(req.Cwd, s.cfg))
	if q != nil {
		s.q = q
	}
	if res == nil {
		res = new(threadResult)
		p := threadParams{Cwd: req.Cwd, Model: a.opts.Model, Config: s.cfg}
		p.ApprovalPolicy, p.Sandbox = modePolicy(s.set.mode)
		if err := srv.c.Call(ctx, mThreadStart, p, res); err != nil {
			return nil, fmt.Errorf("starting a codex thread: %w", err)
		}
	}
	a.opened(ctx, srv, s, res)
	a.prestartFor(srv, req.Cwd, s.cfg)
	return s, nil
}

// prestartFor keeps a spare thread for the next session/new, unless spares
// are off.
func (a *Adapter) prestartFor(srv *appServer, cwd string, cfg map[string]any) {
	if !a.opts.NoSpare {
		a.prestart(srv, cwd, cfg)
	}
}

// opened publishes a session whose thread srv started or resumed, with
// the model list for its config options.
func (a *Adapter) opened(ctx context.Context, srv *appServer, s *Session, res *threadResult) {
	models, err := a.models.get(ctx, srv)
	if err != nil {
		a.opts.Logger.Warn().Err(err).Msg("no model list for the session's config options")
	}
	s.thread, s.gen = res.Thread.ID, srv.gen
	s.models, s.set.model, s.set.effort = models, res.Model, res.ReasoningEffort
	a.mu.Lock()
	a.sessions[s.thread] = s
	delete(a.pending, s.thread)
	a.early.claim(s.thread, s.q)
	a.mu.Unlock()
	if canNotify(s.client) {
		for _, n := range srv.notices.all() {
			// Held by the bridge until the answer that opens the session.
			_ = s.update(ctx, acp.SessionUpdate{Notice: &n})
		}
	}
}

// forget drops a closed session.
func (a *Adapter) forget(s *Session) {
	a.mu.Lock()
	delete(a.sessions, s.thread)
	for id, owner := range a.children {
		if owner == s {
			delete(a.children, id)
		}
	}
	srv := a.srv
	a.mu.Unlock()
	s.stopChildren(srv)
	if srv != nil && srv.gen == s.gen {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.c.Call(ctx, mThreadUnsub, map[string]string{"threadId": s.thread}, nil)
	}
}

// Close stops the app-server and waits for its reader.
func (a *Adapter) Close() error {
	a.mu.Lock()
	a.closed = true
	srv := a.srv
	a.srv = nil
	a.mu.Unlock()
	var err error
	if srv != nil {
		err = srv.p.Stop(context.Background())
	}
	a.cancel()
	a.wg.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // stopped on purpose
	}
	return err
}
