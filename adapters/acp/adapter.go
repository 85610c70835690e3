package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// DefaultCancelGrace is how long a cancelled turn waits for the agent's own
// answer before the bridge answers "cancelled" and stops the agent.
const DefaultCancelGrace = 2 * time.Second

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

// Adapter serves a native-ACP agent; it satisfies bridge.Adapter and
// bridge.Passthrough.
type Adapter struct {
	opts Options

	initMu sync.Mutex // serialises initialize and the control connection
	init   json.RawMessage
	caps   agentCaps
	ctl    *agentConn // guarded by initMu; the session-less connection
	// auth is the last successful authenticate of any editor, replayed to
	// the control agent when it restarts. Session agents are logged in
	// with their own connection's (dial). Guarded by initMu.
	auth   json.RawMessage
	probes sync.WaitGroup // stops of the processes asked at initialize
}

// agentCaps is what the bridge itself needs of the agent's capabilities.
type agentCaps struct {
	load, resume bool
	// loadWithheld: the agent advertised loadSession but its load is known
	// to lose the stored session (see withholdLoad), so the editor is not
	// offered it and the bridge refuses it.
	loadWithheld bool
}

// New returns an Adapter; nothing starts until the editor initializes.
func New(o Options) *Adapter {
	if o.Name == "" {
		o.Name = baseName(o.Path)
	}
	if o.CancelGrace <= 0 {
		o.CancelGrace = DefaultCancelGrace
	}
	if o.Launch == nil {
		o.Launch = proc.Start
	}
	return &Adapter{opts: o}
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
	return a.dialLocked(ctx, dir, initParams, rc, a.authFor(rc))
}

// authFor is the authenticate params for an agent serving rc: its
// connection's own, when the client (under the quirk fixes) knows them.
func (a *Adapter) authFor(rc acp.RawClient) json.RawMessage {
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

// dialLocked is dial with the authenticate params given, for callers that
// hold initMu.
func (a *Adapter) dialLocked(ctx context.Context, dir string, initParams json.RawMessage, rc acp.RawClient, auth json.RawMessage) (*agentConn, json.RawMessage, error) {
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
// serves by stopping the session's agent. That process is stopped at once,
// in the background: sessions run in processes of their own, and one for
// requests that name no session (session/list, extension methods) starts
// when the first arrives. Keeping it would cost every shutdown a stop for a
// process that is mostly idle.
func (a *Adapter) Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if a.init != nil {
		return a.init, nil
	}
	c, res, err := a.dialLocked(ctx, "", params, nil, a.auth)
	if err != nil {
		return nil, err
	}
	out, caps, err := mapInitialize(res)
	if err != nil {
		c.stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("reading %s's initialize answer: %w", a.opts.Name, err)
	}
	a.init, a.caps = out, caps
	a.probes.Add(1)
	go func() {
		defer a.probes.Done()
		c.stop(context.Background())
	}()
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

// control returns the session-less connection, restarting it if the agent
// died.
func (a *Adapter) control(ctx context.Context) (*agentConn, error) {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if a.ctl != nil && a.ctl.err() == nil {
		return a.ctl, nil
	}
	c, _, err := a.dialLocked(ctx, "", nil, nil, a.auth)
	if err != nil {
		return nil, err
	}
	a.ctl = c
	return c, nil
}

func (a *Adapter) authParams() json.RawMessage {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	return a.auth
}

// Forward sends a request that names no open session to the control agent.
// A successful authenticate is remembered and replayed to the agents
// started later; logout forgets it.
func (a *Adapter) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c, err := a.control(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.call(ctx, method, params)
	if err == nil {
		switch method {
		case acp.MethodAuthenticate:
			a.initMu.Lock()
			a.auth = append(json.RawMessage(nil), params...)
			a.initMu.Unlock()
		case acp.MethodLogout:
			a.initMu.Lock()
			a.auth = nil
			a.initMu.Unlock()
		}
	}
	return res, err
}

// Notify sends a notification that names no open session to the control
// agent, if it runs.
func (a *Adapter) Notify(_ context.Context, method string, params json.RawMessage) error {
	a.initMu.Lock()
	c := a.ctl
	a.initMu.Unlock()
	if c == nil || c.err() != nil {
		return errors.New("no agent running to notify")
	}
	c.notify(method, params)
	return nil
}

// NewSession is the typed entry of bridge.Adapter; the bridge uses Open for
// passthrough adapters, so this only serves callers holding a RawClient.
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	rc, ok := c.(acp.RawClient)
	if !ok {
		return nil, errors.New("a native-ACP agent needs a client that forwards raw frames")
	}
	params, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	s, _, err := a.Open(ctx, acp.MethodSessionNew, params, rc)
	return s, err
}

// Close stops the control agent and waits for the stop of the process
// asked at initialize. Sessions are closed by the bridge first.
func (a *Adapter) Close() error {
	defer a.probes.Wait()
	a.initMu.Lock()
	c := a.ctl
	a.ctl = nil
	a.initMu.Unlock()
	if c == nil {
		return nil
	}
	if err := c.stop(context.Background()); err != nil && c.err() == nil {
		return err
	}
	return nil
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
