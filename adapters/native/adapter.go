package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// DefaultCancelGrace is how long a cancelled turn waits for the agent's own
// answer before the bridge answers "cancelled" and stops the agent.
const DefaultCancelGrace = 2 * time.Second

// DefaultMaxIdleFree is how many agents serving no session may wait idle
// at once: under acpbridge serve each client login has its own, and a few
// cover the clients working at a time.
const DefaultMaxIdleFree = 4

// DefaultFreeIdleTimeout is how long an agent serving no session may wait
// idle before it is stopped.
const DefaultFreeIdleTimeout = 10 * time.Minute

// Options configure an Adapter.
type Options struct {
	// Name labels the agent in logs, errors and agentInfo when the agent
	// sends none (default: the base name of Path).
	Name string
	// Title is a human name (e.g. "Gemini CLI").
	Title string
	// Path and Args are the agent's command line, ACP flag included.
	Path string
	Args []string
	// Env holds "KEY=value" overrides for the agent's environment.
	Env []string
	// CancelGrace bounds how long a cancelled turn waits for the agent
	// (default DefaultCancelGrace).
	CancelGrace time.Duration
	// StopGrace is each step of stopping the agent (close stdin, SIGTERM,
	// SIGKILL); 0 means proc's default.
	StopGrace time.Duration
	// MaxIdleFree bounds the idle agents serving no session (one per
	// login, for session/list, authenticate and extension methods; see
	// free.go): past it the least recently used is stopped, but never the
	// one started at initialize for the first session to take over
	// (default DefaultMaxIdleFree).
	MaxIdleFree int
	// FreeIdleTimeout stops an agent serving no session, the one started
	// at initialize included, once it has been idle that long (default
	// DefaultFreeIdleTimeout; negative: never).
	FreeIdleTimeout time.Duration
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Trace, if set, receives every line written to (true) or read from
	// (false) the agent.
	Trace func(toAgent bool, line []byte)
	// Launch starts the agent (default proc.Start). A replay passes an
	// in-process player of a recording.
	Launch func(ctx context.Context, spec proc.Spec) (proc.Process, error)

	// serveHook, set only by tests, runs where an agent request's answer
	// is awaited, before the wait.
	serveHook func()
}

// Adapter serves a native-ACP agent: its initialize answer is the agent's
// (acp.Initializer) and the requests the bridge cannot model go to the
// agent unchanged (acp.Forwarder).
type Adapter struct {
	opts Options
	// dir is the bridge's own working directory, where agents that serve
	// no session run; "" when it cannot be read.
	dir string

	initMu sync.Mutex // serialises initialize; guards what follows
	init   json.RawMessage
	caps   agentCaps
	// free holds the running agents that serve no session, by the login
	// they hold ("" none): the one started at initialize, and the control
	// agents that answer requests naming no session. A session may take
	// one over (see spare); a login is never used for another's requests.
	free map[string]*agentConn
	// auth is the last successful authenticate of any editor, for callers
	// whose client does not say its own login (the bridge's does).
	auth json.RawMessage
	// sweep fires when the longest idle free agent reaches
	// FreeIdleTimeout; nil when none waits. A pending sweep counts in
	// stops until it has run or been stopped.
	sweep  *time.Timer
	closed bool           // set by Close: nothing is filed or swept after
	stops  sync.WaitGroup // stops of agents dropped from free, and the sweep
}

// agentCaps is what the bridge itself needs of the agent's capabilities.
type agentCaps struct {
	load, resume bool
	// loadWithheld: the agent advertised loadSession but its load is known
	// to lose the stored session (see withholdLoad), so the editor is not
	// offered it and the bridge refuses it.
	loadWithheld bool
}

var (
	_ acp.Adapter     = (*Adapter)(nil)
	_ acp.Initializer = (*Adapter)(nil)
	_ acp.Forwarder   = (*Adapter)(nil)
)

// New returns an Adapter; nothing starts until the editor initializes.
func New(o Options) *Adapter {
	if o.Name == "" {
		o.Name = baseName(o.Path)
	}
	if o.CancelGrace <= 0 {
		o.CancelGrace = DefaultCancelGrace
	}
	if o.MaxIdleFree <= 0 {
		o.MaxIdleFree = DefaultMaxIdleFree
	}
	if o.FreeIdleTimeout == 0 {
		o.FreeIdleTimeout = DefaultFreeIdleTimeout
	}
	if o.Launch == nil {
		o.Launch = proc.Start
	}
	dir, _ := os.Getwd()
	return &Adapter{opts: o, dir: dir, free: make(map[string]*agentConn)}
}

// Info names the agent; its capabilities come from the agent (see
// Initialize), so nothing else is set.
func (a *Adapter) Info() acp.AgentInfo {
	return acp.AgentInfo{Name: a.opts.Name, Title: a.opts.Title}
}

// dial starts the agent in dir, initializes it with the editor's
// initialize params, and authenticates it as the editor did: the editor of
// rc's connection, when the client says (the bridge's does), so that over
// HTTP a client's login never reaches the sessions of another.
func (a *Adapter) dial(ctx context.Context, dir string, initParams json.RawMessage, rc acp.RawClient) (*agentConn, json.RawMessage, error) {
	return a.dialAs(ctx, dir, initParams, rc, a.loginOf(rc))
}

// loginOf is the authenticate params the agents serving rc's editor are
// logged in with.
func (a *Adapter) loginOf(rc acp.RawClient) json.RawMessage {
	if q, ok := rc.(*quirkClient); ok {
		rc = q.RawClient
	}
	if ac, ok := rc.(authenticated); ok {
		return ac.AuthenticateParams()
	}
	return a.authParams()
}

// authenticated is the bridge's session client, which knows its
// connection's last accepted authenticate (declared here, as adapters do
// not import bridge).
type authenticated interface {
	AuthenticateParams() json.RawMessage
}

// dialAs is dial with the authenticate params given.
func (a *Adapter) dialAs(ctx context.Context, dir string, initParams json.RawMessage, rc acp.RawClient, auth json.RawMessage) (*agentConn, json.RawMessage, error) {
	log := a.opts.Logger.With().Str("adapter", a.opts.Name).Logger()
	p, err := a.opts.Launch(context.Background(), proc.Spec{
		Name: a.opts.Name, Path: a.opts.Path, Args: a.opts.Args, Env: a.opts.Env,
		Dir: dir, Logger: a.opts.Logger, Grace: a.opts.StopGrace,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s (%s): %w", a.opts.Name, a.opts.Path, err)
	}
	c := newAgentConn(p, a.opts.Name, log.With().Int("pid", p.Pid()).Logger(), a.opts.Trace, rc, a.opts.serveHook)
	if len(initParams) == 0 {
		initParams = json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{}}`)
	}
	c.initParams, c.login = initParams, string(auth)
	res, err := c.call(ctx, acp.MethodInitialize, initParams)
	if err != nil {
		c.stop(context.WithoutCancel(ctx))
		return nil, nil, fmt.Errorf("initializing %s: %w", a.opts.Name, err)
	}
	if auth != nil {
		if _, err := c.call(ctx, acp.MethodAuthenticate, auth); err != nil {
			c.stop(context.WithoutCancel(ctx))
			return nil, nil, fmt.Errorf("authenticating %s again: %w", a.opts.Name, err)
		}
	}
	return c, res, nil
}

// Initialize starts the agent once to learn what it offers. The answer is
// the agent's, plus what the bridge adds: session/close, which the bridge
// serves by stopping the session's agent. The process stays up, serving no
// session: the editor's first session takes it over (see spare), so the
// first session/new waits for no second start of the agent (Qwen Code and
// opencode take seconds to start), and until then it answers the requests
// that name no session.
func (a *Adapter) Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if a.init != nil {
		return a.init, nil
	}
	c, res, err := a.dialAs(ctx, "", params, nil, a.auth)
	if err != nil {
		return nil, err
	}
	out, caps, err := mapInitialize(res)
	if err != nil {
		c.stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("reading %s's initialize answer: %w", a.opts.Name, err)
	}
	a.init, a.caps = out, caps
	c.kept = true
	a.putLocked(c)
	return out, nil
}

// mapInitialize reads the capabilities the bridge relies on and adds the
// ones it serves itself.
func mapInitialize(res json.RawMessage) (json.RawMessage, agentCaps, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(res))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, agentCaps{}, err
	}
	ac, _ := m["agentCapabilities"].(map[string]any)
	if ac == nil {
		ac = map[string]any{}
		m["agentCapabilities"] = ac
	}
	var caps agentCaps
	caps.load, _ = ac["loadSession"].(bool)
	if info, _ := m["agentInfo"].(map[string]any); caps.load && withholdLoad(info) {
		caps.load, caps.loadWithheld = false, true
		ac["loadSession"] = false
	}
	sc, _ := ac["sessionCapabilities"].(map[string]any)
	if sc == nil {
		sc = map[string]any{}
		ac["sessionCapabilities"] = sc
	}
	if r, ok := sc["resume"]; ok && r != nil {
		caps.resume = true
	}
	if sc["close"] == nil {
		sc["close"] = map[string]any{}
	}
	out, err := json.Marshal(m)
	return out, caps, err
}

func (a *Adapter) capabilities() agentCaps {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	return a.caps
}

func (a *Adapter) authParams() json.RawMessage {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	return a.auth
}

// Forward sends a request that names no open session to a control agent
// logged in as rc's editor is, starting one if none runs: under acpbridge
// serve, one HTTP client's login never answers another's session/list.
// authenticate and logout go to an agent no other request is using, which
// then holds the new login.
func (a *Adapter) Forward(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	if method == acp.MethodAuthenticate || method == acp.MethodLogout {
		return a.relogin(ctx, method, params, rc)
	}
	c, err := a.control(ctx, rc)
	if err != nil {
		return nil, err
	}
	defer a.release(c)
	return c.call(ctx, method, params)
}

// Notify sends a notification that names no open session to the control
// agent of rc's login, if one runs.
func (a *Adapter) Notify(_ context.Context, method string, params json.RawMessage, rc acp.RawClient) error {
	login := string(a.loginOf(rc))
	a.initMu.Lock()
	c := a.free[login]
	a.initMu.Unlock()
	if c == nil || c.err() != nil {
		return errors.New("no agent running to notify")
	}
	c.notify(method, params)
	return nil
}

// NewSession is the typed entry every acp.Adapter has. The bridge opens
// this adapter's sessions with Open (see acp.Forwarder), as the agent's
// answer carries what the typed one cannot, and its sessions are
// RawSessions, not typed Sessions; so this refuses.
func (a *Adapter) NewSession(context.Context, acp.NewSessionRequest, acp.Client) (acp.Session, error) {
	return nil, fmt.Errorf("%s speaks ACP itself: its sessions are opened with Open, through a client that forwards raw frames", a.opts.Name)
}

// Close stops the agents that serve no session, side by side, and waits
// for them. Sessions are closed by the bridge first.
func (a *Adapter) Close() error {
	a.initMu.Lock()
	all := a.free
	a.free = make(map[string]*agentConn)
	a.closed = true
	if a.sweep != nil && a.sweep.Stop() {
		a.stops.Done() // it will not run
	}
	a.initMu.Unlock()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, c := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.stop(context.Background()); err != nil && c.err() == nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	a.stops.Wait()
	return errors.Join(errs...)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
