package pty

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Options configure the adapter. Command is required; the zero value of the
// rest is usable.
type Options struct {
	// Command is the agent's argv.
	Command []string
	// Name labels logs and errors (default: the command's base name).
	Name string
	// Env holds "KEY=value" overrides for the agent.
	Env []string
	// Cols and Rows are the terminal size (default 200×50: room for the
	// agents' dialogs, and little rewrapping).
	Cols, Rows int
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// StopGrace is the wait between the steps of stopping the agent
	// (default proc.DefaultGrace).
	StopGrace time.Duration
	// NewSessionID returns the id of a new session (default: random).
	NewSessionID func() string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Record, if set, records the first session into a fixture file.
	Record *Recorder
	// Reporter is the argv prefix of the command a profile's [signal]
	// section has the agent run to report (default: this executable and
	// its hidden subcommand, NotifyCommand); the socket's path follows it.
	Reporter []string

	// start starts the agent; tests may replace it.
	start func(ctx context.Context, s proc.Spec, cols, rows uint16) (proc.Process, error)
}

// Adapter serves ACP sessions from an interactive terminal agent, one PTY
// per session. Its methods are safe for concurrent use.
type Adapter struct {
	p    *Profile
	opts Options

	mu       sync.Mutex
	sessions map[*session]struct{} // guarded by mu; open sessions
	closed   bool                  // guarded by mu
}

// A terminal agent implements none of the contract's optional interfaces:
// nothing it stores can be listed, loaded or resumed.
var (
	_ acp.Adapter = (*Adapter)(nil)
	_ acp.Session = (*session)(nil)
)

// New returns an Adapter running opts.Command, driven by profile p.
func New(p *Profile, opts Options) (*Adapter, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(opts.Command[0])
	}
	if opts.Cols <= 0 {
		opts.Cols = proc.DefaultCols
	}
	if opts.Rows <= 0 {
		opts.Rows = proc.DefaultRows
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = proc.DefaultGrace
	}
	if opts.NewSessionID == nil {
		opts.NewSessionID = randomID
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.start == nil {
		opts.start = proc.StartPTY
	}
	return &Adapter{p: p, opts: opts, sessions: map[*session]struct{}{}}, nil
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Info describes the agent: text prompts only, no modes, no tools.
func (a *Adapter) Info() acp.AgentInfo {
	return acp.AgentInfo{Name: a.opts.Name, Title: a.opts.Name + " (terminal, profile " + a.p.Name + ")", Version: a.p.Version}
}

// NewSession starts the agent on a new PTY. Its start-up (and start-up
// dialogs) is waited for by the first prompt.
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errors.New("adapter closed")
	}
	o := &a.opts
	rec := a.opts.Record.begin(a.p, o, req.Cwd)
	if rec != nil {
		c, o = rec.client(c), rec.options(o)
	}
	s, err := startSession(ctx, acp.SessionID(a.opts.NewSessionID()), req, c, a.p, o)
	if err != nil {
		return nil, err
	}
	a.sessions[s] = struct{}{}
	if rec != nil {
		return rec.session(&closer{session: s, a: a}), nil
	}
	return &closer{session: s, a: a}, nil
}

// closer forgets the session when it closes.
type closer struct {
	*session
	a *Adapter
}

func (c *closer) Close() error {
	err := c.session.Close()
	c.a.mu.Lock()
	delete(c.a.sessions, c.session)
	c.a.mu.Unlock()
	return err
}

// Close stops every open session's agent.
func (a *Adapter) Close() error {
	a.mu.Lock()
	a.closed = true
	open := make([]*session, 0, len(a.sessions))
	for s := range a.sessions {
		open = append(open, s)
	}
	a.sessions = map[*session]struct{}{}
	a.mu.Unlock()
	var errs []error
	a.opts.Record.end()
	for _, s := range open {
		errs = append(errs, s.Close())
	}
	errs = append(errs, a.opts.Record.flush())
	return errors.Join(errs...)
}
