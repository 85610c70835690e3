// Package replay serves a recorded native session (a fixture) as if the
// wrapped CLI were running: the adapter the fixture names is driven by an
// in-process player that acts as the agent process and plays the fixture's
// script, so an editor sees the recorded conversation, permission questions
// included, without the real CLI, a network or an account. It is for demos,
// editor integration work and tests.
//
// # Who builds what
//
// No adapter imports another, so this package never builds the adapter it
// drives: its caller (the composition root, cmd/acpbridge's replay.go,
// which picks by the fixture's "adapter" meta) does. For a Claude Code
// recording ("adapter: claude"), or one of another CLI in its stream-JSON
// dialect ("adapter: stream-json", "dialect: NAME"), the caller passes
// Options.Wrap, which builds the adapter around the launcher this package
// gives it (the player is adapters/replay/streamplayer); Adapter adds what a replay serves besides (the
// recorded session to list and load). For a JSON-RPC recording ("adapter:
// acp", "adapter: codex") the caller builds the adapter itself with Launcher
// as its process starter (the player is adapters/replay/rpcplayer); the adapter
// serves everything else unchanged.
//
// Besides new sessions, a Claude Code recording's session can be listed and
// loaded (through its adapter's LoadRecorded, see RecordedLoader): a load
// replays the whole recorded conversation as session/update
// notifications and returns a session that serves further prompts (the
// recording's turns, played again).
//
// # When the editor answers otherwise
//
// Both players follow these rules. A recording holds one answer to each permission question, and what
// followed came from that answer. When the editor chooses otherwise, the
// replay does not pretend: playing the recorded "allow" after a reject
// would show a tool that ran against the user's choice. Instead:
//
//   - a cancelled outcome ends the turn with stopReason "cancelled", the
//     tool failed, as the CLI ends a turn it is told to stop;
//   - a reject where the recording allowed (or an allow where it rejected)
//     fails the tool with a message saying the recording cannot follow the
//     editor's choice, says the same as the agent's last words, and ends
//     the turn with "end_turn".
//
// Either way the rest of the recorded turn is skipped; the next prompt
// plays the recording's next turn. Allow once and allow always are the same
// answer to a recording, as are reject once and reject always.
//
// New serves a fixture held in memory (recording.Load); Stream serves one
// opened with recording.Open, whose agent script each session reads from the
// file as it plays, so a long recording costs no more memory than a short
// one.
//
// The package imports fixtures, its players and adapters/internal/proc;
// never another adapter and never the bridge package.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/replay/streamplayer"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// Options configure a replay. Wrap is required; the rest may be zero.
type Options struct {
	// Pace is a delay before each recorded output line, to watch a replay
	// unfold at a human speed (default none).
	Pace time.Duration
	// Wrap builds the adapter a stream-JSON recording is played through,
	// around launch (required by New and Stream).
	Wrap func(launch Launch) acp.Adapter
}

// Launch starts an agent process; the wrapped adapter calls it where it
// would start the real CLI.
type Launch = func(ctx context.Context, spec proc.Spec) (proc.Process, error)

// RecordedLoader is an adapter that can serve session/load of the recorded
// session: it sends history (the recorded agent script as (fromAgent, line)
// pairs) to c as the conversation so far, then opens the session in cwd
// resumed. Without it the recorded session is listed but cannot be loaded.
type RecordedLoader interface {
	LoadRecorded(ctx context.Context, req acp.LoadSessionRequest, cwd string, history iter.Seq2[bool, []byte], c acp.Client) (acp.Session, error)
}

// Adapter replays one fixture. Its methods are safe for concurrent use.
type Adapter struct {
	src      source
	opts     Options
	recorded acp.SessionID // the session id in the recording
	title    string        // the first prompt's text, shortened
	inner    acp.Adapter   // the adapter Options.Wrap built

	steeredOnce sync.Once
	steered     bool // the recording holds a steered message (steer.go); set in steeredOnce
}

var (
	_ acp.Adapter = (*Adapter)(nil)
	_ acp.Loader  = (*Adapter)(nil)
	_ acp.Lister  = (*Adapter)(nil)
)

// source is what an Adapter replays: a fixture in memory (New) or a
// recording read from its file (Stream).
type source struct {
	path   string
	meta   map[string]string
	steps  int
	script func() (recording.StepReader, error) // a reader from the first step
	check  func() error                         // before each session: is the script still there?
}

// New returns an Adapter serving fx, whose script is held in memory. Only
// stream-JSON recordings (Claude Code's, "adapter: claude", and those of
// other CLIs in their dialects, "adapter: stream-json") are played this
// way.
func New(fx *recording.Fixture, opts Options) (*Adapter, error) {
	return newAdapter(source{
		path:   fx.Path,
		meta:   fx.Meta,
		steps:  len(fx.Script),
		script: func() (recording.StepReader, error) { return recording.SliceSteps(fx.Script), nil },
		check:  func() error { return nil },
	}, opts)
}

// Stream returns an Adapter serving rec (see recording.Open). Each session
// reads the agent script from the file as it plays, so serving a long
// recording costs no more memory than a short one. A file that disappears or
// changes after Open makes the next session fail with an error naming it.
func Stream(rec *recording.Recording, opts Options) (*Adapter, error) {
	return newAdapter(source{
		path:   rec.Path,
		meta:   rec.Meta,
		steps:  rec.Steps,
		script: rec.Script,
		check:  rec.Check,
	}, opts)
}

func newAdapter(src source, opts Options) (*Adapter, error) {
	if name := src.meta["adapter"]; name != "claude" && name != "stream-json" {
		return nil, fmt.Errorf("replaying %s: unsupported adapter %q", src.path, name)
	}
	if src.steps == 0 {
		return nil, fmt.Errorf("replaying %s: no %s section", src.path, recording.SectionAgent)
	}
	title, err := firstPrompt(src)
	if err != nil {
		return nil, fmt.Errorf("replaying %s: %w", src.path, err)
	}
	if opts.Wrap == nil {
		return nil, fmt.Errorf("replaying %s: no adapter to wrap (Options.Wrap)", src.path)
	}
	a := &Adapter{src: src, opts: opts, recorded: acp.SessionID(src.meta["session"]), title: title}
	a.inner = opts.Wrap(a.launch)
	return a, nil
}

// launch starts the fake agent for one session. The session's id is on the
// command line the wrapped adapter built; the fake agent writes it wherever
// the recording has the recorded id. A recording file that went away or
// changed fails the start.
func (a *Adapter) launch(_ context.Context, spec proc.Spec) (proc.Process, error) {
	if err := a.src.check(); err != nil {
		return nil, fmt.Errorf("replaying: %w", err)
	}
	live := sessionArg(spec.Args)
	opts := streamplayer.Options{SessionID: live, RecordedSessionID: string(a.recorded), Pace: a.opts.Pace,
		StopOnOtherAnswer: true}
	return proc.InProcess(spec.Name, func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
		return streamplayer.Play(ctx, a.src.script, stdin, stdout, opts)
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

// Info describes the wrapped agent, titled as a replay of the fixture;
// steering is declared where the recording has it (steer.go).
func (a *Adapter) Info() acp.AgentInfo {
	info := a.inner.Info()
	info.Title += " (replay of " + filepath.Base(a.src.path) + ")"
	info.Steering = info.Steering && a.steerable()
	return info
}

// NewSession starts a session that plays the recording from its start.
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	return a.inner.NewSession(ctx, req, c)
}

// ListSessions lists the recorded session (when cwd, if given, matches and
// the wrapped adapter can load it).
func (a *Adapter) ListSessions(_ context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	cwd := a.src.meta["cwd"]
	if _, ok := a.inner.(RecordedLoader); !ok || req.Cwd != nil && *req.Cwd != cwd {
		return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
	}
	info := acp.SessionInfo{SessionID: a.recorded, Cwd: cwd}
	if a.title != "" {
		info.Title = &a.title
	}
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{info}}, nil
}

// firstPrompt is the text of the recording's first prompt, shortened; it
// reads the script only up to that prompt.
func firstPrompt(src source) (string, error) {
	sr, err := src.script()
	if err != nil {
		return "", err
	}
	defer sr.Close()
	for {
		st, err := sr.Next()
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		var m struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if st.Dir != recording.ToAgent || json.Unmarshal(st.Line, &m) != nil || m.Type != "user" {
			continue
		}
		return shorten(strings.Join(strings.Fields(promptText(m.Message.Content)), " "), 80), nil
	}
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
	l, ok := a.inner.(RecordedLoader)
	if !ok {
		return nil, fmt.Errorf("%w: replaying %s: this recording cannot be loaded", acp.ErrInternal, a.src.path)
	}
	history, err := a.history()
	if err != nil {
		return nil, fmt.Errorf("%w: replaying %s: %v", acp.ErrInternal, a.src.path, err)
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = a.src.meta["cwd"]
	}
	return l.LoadRecorded(ctx, req, cwd, func(yield func(bool, []byte) bool) {
		for _, st := range history {
			if !yield(st.Dir == recording.FromAgent, st.Line) {
				return
			}
		}
	}, c)
}

// history reads the recorded conversation for LoadRecorded, which takes it
// whole (unlike a session, which streams it).
func (a *Adapter) history() ([]recording.Step, error) {
	sr, err := a.src.script()
	if err != nil {
		return nil, err
	}
	defer sr.Close()
	var steps []recording.Step
	for {
		st, err := sr.Next()
		if err == io.EOF {
			return steps, nil
		}
		if err != nil {
			return nil, err
		}
		steps = append(steps, recording.Step{Dir: st.Dir, Line: bytes.Clone(st.Line)})
	}
}

// Close closes every session.
func (a *Adapter) Close() error {
	return a.inner.Close()
}
