package claude

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Options configure an Adapter. The zero value runs Claude Code ("claude"
// from PATH).
type Options struct {
	// Dialect is the CLI's dialect (default Claude()).
	Dialect *Dialect
	// Path is the CLI executable (default the dialect's Command, looked up
	// in PATH).
	// With the default Launch, a session cannot be opened while it is
	// missing or not executable.
	Path string
	// PermissionMode and Model are the initial mode and model; empty means
	// the CLI's defaults.
	PermissionMode, Model string
	// Effort is the initial reasoning effort (low, medium, high, xhigh,
	// max); empty means the model's default.
	Effort string
	// EditorFS routes Claude's Read, Write and Edit through the editor's
	// fs/read_text_file and fs/write_text_file when it advertises both (see
	// editorfs.go); off, the CLI reads and writes the disk itself.
	EditorFS bool
	// ExtraArgs are appended to the CLI's command line.
	ExtraArgs []string
	// Launch starts the CLI (default proc.Start). Tests and replays pass an
	// in-process stand-in (proc.InProcess).
	Launch func(ctx context.Context, spec proc.Spec) (proc.Process, error)
	// NewSessionID returns the id of a new session (default: a random UUIDv4).
	// The CLI is told to use it, so ACP and Claude ids are the same.
	NewSessionID func() string
	// Logger receives diagnostics; the zero value discards them.
	Logger zerolog.Logger
	// Trace, if set, sees every line written to (toAgent) or read from the
	// CLI. The line is valid only during the call: read buffers are reused.
	Trace func(toAgent bool, line []byte)
	// Env holds extra "KEY=value" entries for the CLI's environment. It
	// also decides where stored sessions are read for load, resume and
	// list: $CLAUDE_CONFIG_DIR, else $HOME/.claude, as the CLI sees them.
	Env []string
	// CancelGrace is how long a cancelled turn waits for the CLI to wind
	// down after the interrupt before its process is stopped and the turn
	// answered "cancelled" (default DefaultCancelGrace).
	CancelGrace time.Duration
	// StartTimeout bounds the wait for the CLI's answer to initialize
	// (default DefaultStartTimeout). A CLI that starts but never answers
	// (hung, or waiting for input it will never get) is stopped and the
	// prompt that waited fails with an error naming it, its path and the
	// limit.
	StartTimeout time.Duration
	// StopGrace is the grace period of each step of a process stop (default
	// 3s).
	StopGrace time.Duration
	// AwaitStart makes a new session wait for the CLI's initialize answer
	// before it is returned, so its first State carries the CLI's models and
	// commands. It is for agents that start instantly (a replayed
	// recording), where it makes every session/new answer the same; a real
	// CLI is started in the background so session/new answers at once.
	AwaitStart bool
	// ModelCache is the file where the model list each CLI executable
	// reported is kept, so the answer that opens a session lists the real
	// models at once (see modelCache). Empty means DefaultModelCache() with
	// the default launcher and memory only with another one; "-" keeps the
	// lists in memory only.
	ModelCache string
	// ModelWait bounds how long opening a session waits for the CLI's
	// initialize answer when no model list is known for its executable yet
	// (default 3s; negative: no wait). A CLI slower than that is answered
	// with a placeholder model, corrected by config_option_update.
	ModelWait time.Duration
	// ReadWindow lets a dense stream of the CLI's output gather between
	// reads. The CLI writes every delta as a line of its own; read one by
	// one, each costs the bridge (and the editor, which gets one write per
	// update) system calls and wake-ups, which on a busy machine take CPU
	// from the CLI itself. While lines come faster than 8 a window, each
	// read waits until ReadWindow has passed since the last, so no line
	// waits longer than that; slower lines, and output already waiting,
	// are read at once. While it waits, the pipe is off the runtime's
	// poller (proc.NowReader), or every write of the CLI would wake the
	// bridge anyway. The text deltas of one such read reach the editor as
	// one chunk. Zero reads every line as it comes (in-process agents,
	// which write in one go anyway); DefaultReadWindow is for a real CLI
	// on a pipe.
	ReadWindow time.Duration
}

// DefaultReadWindow is the ReadWindow for a real CLI: a streamed delta waits
// at most 1 ms, far below what an editor can show, and a fast stream of
// deltas is read in batches of tens of lines instead of one at a time.
const DefaultReadWindow = time.Millisecond

// DefaultCancelGrace is the CancelGrace of a zero Options. A CLI that takes
// the interrupt ends the turn well within it; one that does not (hung,
// stopped) is stopped in the background, and session/cancel is still
// answered within 2 s of the request, as the issue asks.
const DefaultCancelGrace = time.Second

// DefaultStartTimeout is the StartTimeout of a zero Options. The CLI
// answers initialize once Node has loaded it and it has read its settings,
// plugins and MCP configuration: about a second on a developer machine,
// several on a loaded CI runner or a cold disk. A minute is far beyond what
// a working CLI needs on a slow machine, and still ends a hang.
const DefaultStartTimeout = time.Minute

// Adapter serves ACP sessions from a Claude-Code-style CLI. Its methods are
// safe for concurrent use.
type Adapter struct {
	opts    Options
	dialect *Dialect          // opts.Dialect
	store   transcripts.Store // where the CLI keeps its transcripts
	// lookPath makes opening a session fail at once when the executable
	// is missing; only with the default launcher (proc.Start).
	lookPath bool
	// bypass: the CLI is launched so that it accepts bypassPermissions.
	bypass bool
	models *modelCache

	mu       sync.Mutex
	sessions map[acp.SessionID]*Session // guarded by mu
	closed   bool                       // guarded by mu
}

// The contract's optional interfaces Claude Code serves: a signature that
// drifts from bridge/acp's fails the build rather than dropping the
// capability.
var (
	_ acp.Adapter = (*Adapter)(nil)
	_ acp.Loader  = (*Adapter)(nil)
	_ acp.Resumer = (*Adapter)(nil)
	_ acp.Lister  = (*Adapter)(nil)
	_ acp.Deleter = (*Adapter)(nil)
	_ acp.Forker  = (*Adapter)(nil)
)

// New returns an Adapter; defaults are filled in here.
func New(opts Options) *Adapter {
	if opts.Dialect == nil {
		opts.Dialect = Claude()
	}
	d := opts.Dialect
	if opts.Path == "" {
		opts.Path = d.Command
	}
	lookPath := opts.Launch == nil
	if opts.Launch == nil {
		opts.Launch = proc.Start
	}
	if opts.NewSessionID == nil {
		opts.NewSessionID = newUUID
	}
	if opts.CancelGrace <= 0 {
		opts.CancelGrace = DefaultCancelGrace
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 3 * time.Second
	}
	if opts.ModelWait == 0 {
		opts.ModelWait = 3 * time.Second
	}
	switch {
	case opts.ModelCache == "-":
		opts.ModelCache = ""
	case opts.ModelCache == "" && lookPath:
		opts.ModelCache = DefaultModelCache()
	}
	a := &Adapter{opts: opts, dialect: d, store: newStore(opts.Env), lookPath: lookPath,
		bypass:   d.isClaude() && bypassLaunched(opts),
		models:   newModelCache(opts.ModelCache, opts.Logger.With().Str("adapter", d.Name).Logger()),
		sessions: map[acp.SessionID]*Session{}}
	if err := a.checkPath(); err != nil {
		opts.Logger.Warn().Str("adapter", d.Name).Msg(err.Error())
	}
	return a
}

// Info describes the CLI: images and embedded context in prompts, and, as
// far as its dialect passes them on, MCP servers over stdio, HTTP and SSE,
// additional directories and steering (steer.go).
func (a *Adapter) Info() acp.AgentInfo {
	d := a.dialect
	return acp.AgentInfo{
		Name:   d.Name,
		Title:  d.Title,
		Prompt: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
		MCP:    acp.McpCapabilities{HTTP: d.MCPConfigArg != "", SSE: d.MCPConfigArg != ""},
		// Passed to the CLI with --add-dir.
		AdditionalDirectories: d.AddDirArg != "",
		Steering:              d.steerable(),
	}
}

// NewSession starts a session. The CLI starts in the background; a failure
// to start is reported by the first Prompt, except a missing executable,
// which is reported here.
func (a *Adapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	if err := a.checkPath(); err != nil {
		return nil, err
	}
	if err := a.checkCwd(req.Cwd); err != nil {
		return nil, err
	}
	s, err := a.open(ctx, OpenOptions{ID: acp.SessionID(a.opts.NewSessionID()), Cwd: req.Cwd,
		AdditionalDirectories: req.AdditionalDirectories, McpServers: req.McpServers}, c)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenOptions say which session OpenSession opens.
type OpenOptions struct {
	ID  acp.SessionID
	Cwd string
	// AdditionalDirectories are passed with --add-dir.
	AdditionalDirectories []string
	McpServers            []acp.McpServer
	// Resume starts the CLI with --resume (the conversation is stored
	// already) instead of --session-id.
	Resume bool
	// ForkFrom, when set, starts the CLI as a fork of that stored session
	// (the dialect's forkArgs) until the fork has stored a turn of its own.
	ForkFrom acp.SessionID
}

// OpenSession opens a session with a given id, starting its CLI in the
// background. It is how a stored session is reopened once its history has
// been replayed.
func (a *Adapter) OpenSession(o OpenOptions, c acp.Client) (*Session, error) {
	return a.open(context.Background(), o, c)
}

// open opens a session. Its state lists the models the same executable
// reported last time; when none are known it waits, up to ModelWait or
// until ctx ends, for the CLI's initialize answer to list them.
func (a *Adapter) open(ctx context.Context, o OpenOptions, c acp.Client) (*Session, error) {
	id, cwd := o.ID, o.Cwd
	key := cliKey(a.opts.Path)
	models, known := a.models.get(key)
	mcp, err := mcpConfig(o.McpServers)
	if err != nil {
		return nil, err
	}
	s := &Session{
		a:        a,
		id:       id,
		cwd:      cwd,
		client:   c,
		log:      a.opts.Logger.With().Str("adapter", a.dialect.Name).Str("session", string(id)).Logger(),
		mcp:      mcp,
		dirs:     o.AdditionalDirectories,
		resume:   o.Resume,
		forkFrom: o.ForkFrom,
		mode:     orDefault(a.opts.PermissionMode, a.dialect.defaultMode()),
		model:    orDefault(a.opts.Model, "default"),
		effort:   orDefault(a.opts.Effort, orDefault(argEffort(a.opts.ExtraArgs), effortDefault)),
		cliKey:   key,
		models:   models,
		listed:   known,
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.updateCtx = context.WithoutCancel(s.ctx)
	s.procCtx, s.procEnd = context.WithCancel(context.Background())
	s.tr = newTranslator(cwd, s.log)
	s.tr.dialect = a.dialect
	s.tr.onCommands = func(l gjson.Result) { s.setCommands(l, false) }
	s.tr.emit, s.tr.onMode, s.tr.onModel = s.update, s.changeMode, s.changeModel
	var caps acp.ClientCapabilities
	if c != nil {
		caps = c.Capabilities()
	}
	s.tr.notices = noticeModeFor(caps)
	s.tr.compaction = compactionFor(caps)
	s.showChildren(c, caps)
	if c != nil && a.dialect.isClaude() && editorFSFor(a.opts.EditorFS, caps) {
		s.efs = newEditorFS(c, id, configDir(a.opts.Env))
	}
	if a.dialect.isClaude() {
		s.tr.live = newLiveShells(tasksDir(a.opts.Env, cwd, string(s.id)), terminalOutputMeta(caps))
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, fmt.Errorf("%w: the adapter is closed", acp.ErrInvalidRequest)
	}
	if _, dup := a.sessions[id]; dup {
		a.mu.Unlock()
		return nil, fmt.Errorf("%w: session %s is already open", acp.ErrInvalidRequest, id)
	}
	a.sessions[id] = s
	s.mu.Lock()
	r := s.startLocked()
	s.mu.Unlock()
	a.mu.Unlock()
	// Start failures still surface at the first prompt, as usual.
	switch {
	case a.opts.AwaitStart:
		<-r.ready
	case !known && a.opts.ModelWait > 0:
		t := time.NewTimer(a.opts.ModelWait)
		defer t.Stop()
		select {
		case <-r.ready:
		case <-t.C:
			s.log.Debug().Dur("after", a.opts.ModelWait).Msg("the CLI has not listed its models yet; answering without them")
		case <-ctx.Done():
		}
	}
	return s, nil
}

// checkPath reports a CLI executable that cannot be run (not installed, not
// on PATH, not executable) when a session is opened, rather than at its
// first prompt: the editor shows the error where the user acts, and with
// what to do about it. It costs a few stat calls, not a process start.
func (a *Adapter) checkPath() error {
	if !a.lookPath {
		return nil
	}
	if _, err := exec.LookPath(a.opts.Path); err != nil {
		d := a.dialect
		msg := fmt.Sprintf("%s cannot be started from %q: %v. Install %s "+
			"(%s) or give the path of its executable with "+
			"--%s-path or ACPBRIDGE_%s_PATH", d.Title, a.opts.Path, err, d.Title,
			d.Install, d.Name, strings.ToUpper(d.Name))
		return acp.NewError(acp.CodeInternalError, msg, map[string]any{"path": a.opts.Path})
	}
	return nil
}

// checkCwd refuses a working directory the CLI cannot be started in, when
// the session opens: otherwise the first prompt fails with fork/exec's
// "no such file or directory", which names the CLI's executable, not the
// directory. ACP requires an absolute cwd (checked by the bridge as well);
// that it exists matters only to a real process (the default launcher), so
// in-process stand-ins may use recorded paths.
func (a *Adapter) checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return acp.InvalidParams("cwd", "must be an absolute path")
	}
	if !a.lookPath {
		return nil
	}
	fi, err := os.Stat(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return acp.InvalidParams("cwd", fmt.Sprintf("directory %s does not exist", cwd))
	case err != nil:
		return acp.InvalidParams("cwd", err.Error())
	case !fi.IsDir():
		return acp.InvalidParams("cwd", fmt.Sprintf("%s is not a directory", cwd))
	}
	return nil
}

// forget drops a closed session.
func (a *Adapter) forget(id acp.SessionID) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
}

// Close closes every open session.
func (a *Adapter) Close() error {
	a.mu.Lock()
	a.closed = true
	open := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	for _, s := range open {
		_ = s.Close()
	}
	return nil
}

// spec is the command line of the CLI for this session: the dialect's
// stream-JSON flags (for Claude Code what the official SDKs pass: stream-JSON
// both ways, partial messages, permission prompts as control requests,
// session state events for a reliable end of turn), then the session's.
func (s *Session) spec(resume bool, mode, model string) proc.Spec {
	o, d := s.a.opts, s.a.dialect
	args := slices.Clone(d.Args)
	if s.forkFrom != "" && !resume {
		args = append(args, d.forkArgs(string(s.forkFrom), string(s.id))...)
	} else {
		args = append(args, d.sessionArgs(resume, string(s.id))...)
	}
	if mode != "" && d.ModeArg != "" && (mode != d.defaultMode() || !d.isClaude()) {
		args = append(args, d.ModeArg, mode)
	}
	if model != "" && model != "default" && d.ModelArg != "" {
		args = append(args, d.ModelArg, model)
	}
	for _, dir := range s.dirs {
		if d.AddDirArg != "" {
			args = append(args, d.AddDirArg, dir)
		}
	}
	if s.mcp != "" && d.MCPConfigArg != "" {
		args = append(args, d.MCPConfigArg, s.mcp)
	}
	if s.efs != nil {
		args = append(args, "--mcp-config", editorFSConfig, "--disallowedTools", "Read,Write,Edit")
	}
	args = append(args, o.ExtraArgs...)
	env := append(slices.Clone(d.Env), o.Env...)
	return proc.Spec{Name: d.Name, Path: o.Path, Args: args, Env: env, Dir: s.cwd, Logger: s.log, Grace: o.StopGrace}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// bypassLaunched reports whether the CLI's command line lets a session
// switch to bypassPermissions (the CLI refuses it otherwise).
func bypassLaunched(o Options) bool {
	if o.PermissionMode == "bypassPermissions" {
		return true
	}
	for _, a := range o.ExtraArgs {
		if a == "--allow-dangerously-skip-permissions" || a == "--dangerously-skip-permissions" {
			return true
		}
	}
	return false
}

// Contract is what the bridge is given for a: the Adapter itself when its
// dialect keeps transcripts the engine reads (load, resume, list and
// delete) and can fork them, the same without fork when it cannot, else an
// adapter with only the contract's required methods, so that the editor is
// not offered what the CLI cannot do.
func (a *Adapter) Contract() acp.Adapter {
	switch {
	case a.dialect.forks():
		return a
	case a.dialect.Transcripts == "claude":
		return stored{plain{a}}
	}
	return plain{a}
}

// plain is an Adapter without the optional interfaces.
type plain struct{ a *Adapter }

func (p plain) Info() acp.AgentInfo { return p.a.Info() }
func (p plain) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	return p.a.NewSession(ctx, req, c)
}
func (p plain) Close() error { return p.a.Close() }

// stored is an Adapter with the optional interfaces of stored sessions
// but fork.
type stored struct{ plain }

func (s stored) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	return s.a.LoadSession(ctx, req, c)
}
func (s stored) ResumeSession(ctx context.Context, req acp.ResumeSessionRequest, c acp.Client) (acp.Session, error) {
	return s.a.ResumeSession(ctx, req, c)
}
func (s stored) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return s.a.ListSessions(ctx, req)
}
func (s stored) DeleteSession(ctx context.Context, req acp.DeleteSessionRequest) error {
	return s.a.DeleteSession(ctx, req)
}
