package auto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// OptionID is the id of the config option that chooses a session's agent.
const OptionID acp.SessionConfigID = "agent"

// Agent is one agent the Adapter can serve sessions with.
type Agent struct {
	// Name is the agent's value in the option ("claude").
	Name string
	// Title is its product name ("Claude Code").
	Title string
	// Version returns the agent's version ("" when unknown). It is called
	// once, when the first session lists the agents, and may take a while
	// (the CLI's --version).
	Version func() string
	// Start builds the agent's adapter. It is called once, the first time
	// the agent is needed, and should start no process (adapters start
	// theirs for a session, or when asked Info).
	Start func() (acp.Adapter, error)
}

// Install says how to install an agent, for the error that answers a
// session/new when no agent is installed.
type Install struct {
	Title, Command string
}

// Options configure an Adapter. The zero value is usable.
type Options struct {
	// Default is the name of the agent new sessions start with (default:
	// the first agent).
	Default string
	// Name and Version are the bridge's, sent as agentInfo.
	Name, Version string
	// Install lists how to install the agents the bridge knows.
	Install []Install
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
}

// Adapter serves every session with one of its agents, chosen per session.
type Adapter struct {
	agents []Agent
	def    int // index of the default agent; -1 when there is none
	opts   Options

	optionOnce sync.Once
	option     acp.SessionConfigOption // set by optionOnce: the agent option, its value unset

	mu      sync.Mutex
	started map[string]*child           // guarded by mu; by agent name
	owners  map[acp.SessionID]string    // guarded by mu; the agent that listed or opened a session
	authBy  map[acp.AuthMethodID]string // guarded by mu; the agent that offered an auth method
	closed  bool                        // guarded by mu

	initMu  sync.Mutex      // serialises initialize
	initRes json.RawMessage // guarded by initMu; the first successful answer
}

// child is an agent whose adapter has been built.
type child struct {
	agent Agent
	a     acp.Adapter
}

var (
	_ acp.Adapter     = (*Adapter)(nil)
	_ acp.Initializer = (*Adapter)(nil)
	_ acp.Forwarder   = (*Adapter)(nil)
)

// New returns an Adapter for agents, in the order the option lists them.
// An unknown Default is the caller's to refuse (see Has).
func New(agents []Agent, o Options) *Adapter {
	if o.Name == "" {
		o.Name = "acpbridge"
	}
	a := &Adapter{agents: agents, def: -1, opts: o,
		started: map[string]*child{}, owners: map[acp.SessionID]string{}, authBy: map[acp.AuthMethodID]string{}}
	if len(agents) > 0 {
		a.def = 0
	}
	for i, ag := range agents {
		if ag.Name == o.Default {
			a.def = i
		}
	}
	return a
}

// Has reports whether name is one of the agents.
func Has(agents []Agent, name string) bool {
	return index(agents, name) >= 0
}

func index(agents []Agent, name string) int {
	for i, ag := range agents {
		if ag.Name == name {
			return i
		}
	}
	return -1
}

// Info names the bridge; the agents' capabilities are in Initialize's
// answer.
func (a *Adapter) Info() acp.AgentInfo {
	return acp.AgentInfo{Name: "auto", Title: a.title()}
}

func (a *Adapter) title() string {
	names := make([]string, len(a.agents))
	for i, ag := range a.agents {
		names[i] = ag.Title
	}
	if len(names) == 0 {
		return "acpbridge (no agent installed)"
	}
	return "acpbridge (" + strings.Join(names, ", ") + ")"
}

// NewSession refuses: the bridge opens this adapter's sessions with Open.
func (a *Adapter) NewSession(context.Context, acp.NewSessionRequest, acp.Client) (acp.Session, error) {
	return nil, errors.New("multi: sessions are opened with Open")
}

// Close closes every agent's adapter that was started, side by side. The
// bridge has closed the sessions first.
func (a *Adapter) Close() error {
	a.mu.Lock()
	a.closed = true
	all := make([]*child, 0, len(a.started))
	for _, c := range a.started {
		all = append(all, c)
	}
	a.mu.Unlock()
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, c := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.a.Close(); err != nil {
				errs[i] = fmt.Errorf("closing %s: %w", c.agent.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// child returns the adapter of the agent named, building it the first
// time.
func (a *Adapter) child(name string) (*child, error) {
	i := index(a.agents, name)
	if i < 0 {
		return nil, acp.InvalidParams("value", fmt.Sprintf("%q is not an installed agent", name))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errors.New("multi: closed")
	}
	if c := a.started[name]; c != nil {
		return c, nil
	}
	ad, err := a.agents[i].Start()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{agent: a.agents[i], a: ad}
	a.started[name] = c
	return c, nil
}

// startedChild is the agent's adapter if it has been built, else nil.
func (a *Adapter) startedChild(name string) *child {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.started[name]
}

// defaultName is the default agent's name ("" when none is installed).
func (a *Adapter) defaultName() string {
	if a.def < 0 {
		return ""
	}
	return a.agents[a.def].Name
}

// own records that the agent named holds a session.
func (a *Adapter) own(id acp.SessionID, name string) {
	a.mu.Lock()
	a.owners[id] = name
	a.mu.Unlock()
}

// owner is the agent that holds a stored session: the one that listed or
// opened it, else the default agent.
func (a *Adapter) owner(id acp.SessionID) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n, ok := a.owners[id]; ok {
		return n
	}
	return a.defaultName()
}

// noAgent is the answer to session/new when no agent is installed: how to
// install one.
func (a *Adapter) noAgent() error {
	var lines []string
	install := map[string]string{}
	for _, in := range a.opts.Install {
		lines = append(lines, in.Title+": "+in.Command)
		install[in.Title] = in.Command
	}
	return acp.NewError(acp.CodeInternalError,
		"No supported agent is installed here. Install one and start a new session: "+strings.Join(lines, "; "),
		map[string]any{"install": install})
}
