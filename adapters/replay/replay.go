// Package replay serves a recorded native session (a fixture) as if the
// wrapped CLI were running: the adapter the fixture names is built with an
// in-process fake agent that plays the fixture's script, so an editor sees
// the recorded conversation, permission questions included, without the
// real CLI, a network or an account. It is for demos, editor integration
// work and tests.
//
// Besides new sessions, the recorded session can be listed and loaded: a
// load replays the whole recorded conversation as session/update
// notifications and returns a session that serves further prompts (the
// recording's turns, played again).
//
// The package imports adapters/claude, fixtures, fixtures/fakeagent and
// adapters/internal/proc; never the bridge package.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures"
	"github.com/acpbridge/acpbridge/fixtures/fakeagent"
)

// Options configure a replay. The zero value is usable.
type Options struct {
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Trace, if set, sees every line exchanged with the fake agent.
	Trace func(toAgent bool, line []byte)
	// NewSessionID returns the id of a new session (default: random).
	NewSessionID func() string
	// Pace is a delay before each recorded output line, to watch a replay
	// unfold at a human speed (default none).
	Pace time.Duration
	// CancelGrace and StopGrace are passed to the wrapped adapter.
	CancelGrace, StopGrace time.Duration
}

// Adapter replays one fixture. Its methods are safe for concurrent use.
type Adapter struct {
	fx       *fixtures.Fixture
	opts     Options
	recorded acp.SessionID // the session id in the recording
	inner    *claude.Adapter
}

// New returns an Adapter serving fx. Only fixtures of the claude adapter
// are supported.
func New(fx *fixtures.Fixture, opts Options) (*Adapter, error) {
	if name := fx.Meta["adapter"]; name != "claude" {
		return nil, fmt.Errorf("replaying %s: unsupported adapter %q", fx.Path, name)
	}
	if len(fx.Script) == 0 {
		return nil, fmt.Errorf("replaying %s: no %s section", fx.Path, fixtures.SectionAgent)
	}
	a := &Adapter{fx: fx, opts: opts, recorded: acp.SessionID(fx.Meta["session"])}
	a.inner = claude.New(claude.Options{
		Path:         "claude",
		Launch:       a.launch,
		NewSessionID: opts.NewSessionID,
		Logger:       opts.Logger.With().Str("replay", fx.Path).Logger(),
		Trace:        opts.Trace,
		CancelGrace:  opts.CancelGrace,
		StopGrace:    opts.StopGrace,
	})
	return a, nil
}

// launch starts the fake agent for one session. The session's id is on the
// command line the wrapped adapter built; the fake agent writes it wherever
// the recording has the recorded id.
func (a *Adapter) launch(_ context.Context, spec proc.Spec) (proc.Process, error) {
	live := sessionArg(spec.Args)
	opts := fakeagent.Options{SessionID: live, RecordedSessionID: string(a.recorded), Pace: a.opts.Pace}
	script := a.fx.Script
	return proc.InProcess(spec.Name, func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
		return fakeagent.Run(ctx, script, stdin, stdout, opts)
	}), nil
}

// sessionArg finds --session-id=ID or --resume=ID.
func sessionArg(args []string) string {
	for _, a := range args {
		for _, p := range []string{"--session-id=", "--resume="} {
			if v, ok := strings.CutPrefix(a, p); ok {
				return v
			}
		}
	}
	return ""
}

// Info describes the wrapped agent, titled as a replay of the fixture.
func (a *Adapter) Info() acp.AgentInfo {
	info := a.inner.Info()
	info.Title += " (replay of " + filepath.Base(a.fx.Path) + ")"
	return info
}

// NewSession starts a session that plays the recording from its start.
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	return a.inner.NewSession(ctx, req, c)
}

// ListSessions lists the recorded session (when cwd, if given, matches).
func (a *Adapter) ListSessions(_ context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	cwd := a.fx.Meta["cwd"]
	if req.Cwd != nil && *req.Cwd != cwd {
		return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
	}
	info := acp.SessionInfo{SessionID: a.recorded, Cwd: cwd}
	if t := a.title(); t != "" {
		info.Title = &t
	}
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{info}}, nil
}

// title is the first prompt's text, shortened.
func (a *Adapter) title() string {
	for _, st := range a.fx.Script {
		var m struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if st.Dir != fixtures.ToAgent || json.Unmarshal(st.Line, &m) != nil || m.Type != "user" {
			continue
		}
		return shorten(strings.Join(strings.Fields(promptText(m.Message.Content)), " "), 80)
	}
	return ""
}

// promptText is the text of a user message content (a string or blocks).
func promptText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// LoadSession replays the recorded conversation through c, then returns a
// session that serves further prompts by playing the recording again.
func (a *Adapter) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	if req.SessionID != a.recorded {
		return nil, fmt.Errorf("%w: no recorded session %s", acp.ErrResourceNotFound, req.SessionID)
	}
	lines := make([]claude.HistoryLine, 0, len(a.fx.Script))
	for _, st := range a.fx.Script {
		lines = append(lines, claude.HistoryLine{FromAgent: st.Dir == fixtures.FromAgent, Line: st.Line})
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = a.fx.Meta["cwd"]
	}
	if err := claude.ReplayHistory(ctx, c, req.SessionID, cwd, lines, a.opts.Logger); err != nil {
		return nil, err
	}
	s, err := a.inner.OpenSession(claude.OpenOptions{ID: req.SessionID, Cwd: cwd,
		AdditionalDirectories: req.AdditionalDirectories, McpServers: req.McpServers, Resume: true}, c)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes every session.
func (a *Adapter) Close() error {
	return a.inner.Close()
}
