package claude

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// errSessionClosed is returned by calls on a closed session.
var errSessionClosed = fmt.Errorf("%w: the session is closed", acp.ErrInvalidRequest)

// Session is one ACP session: one Claude Code process (restarted with
// --resume when it dies) and the translation state of its conversation.
//
// Prompt runs one turn at a time. SetMode, SetConfigOption, State and Close
// may be called concurrently with Prompt and with each other.
type Session struct {
	a      *Adapter
	id     acp.SessionID
	cwd    string
	client acp.Client
	log    zerolog.Logger
	mcp    string    // --mcp-config value, or ""
	efs    *editorFS // the editor's file tools (editorfs.go), or nil
	dirs   []string  // --add-dir values
	cliKey string    // the executable's key in the adapter's model cache
	// forkFrom is the stored session this one was forked from (spec), or "".
	forkFrom acp.SessionID

	ctx    context.Context // ends at Close: stops waits and turns
	cancel context.CancelFunc
	// updateCtx is ctx without its end: what a closing session still
	// reports goes out. Made once, as updates are sent by the thousand.
	updateCtx context.Context
	procCtx   context.Context // process lifetime; ends after the graceful stop in Close
	procEnd   context.CancelFunc
	wg        sync.WaitGroup // start goroutines and stdout readers

	turnMu sync.Mutex // held by Prompt for a whole turn
	// steerMu guards live (the turn steering messages join, nil between
	// turns) and the steering state of that turn (steer.go).
	steerMu sync.Mutex
	live    *turn
	tr      *translator // guarded by turnMu (and owned by the start goroutine before the first turn)

	mu         sync.Mutex
	cur        *run                // guarded by mu
	resume     bool                // the CLI has stored the conversation; guarded by mu
	mode       string              // guarded by mu
	model      string              // guarded by mu
	models     []model             // guarded by mu
	listed     bool                // the editor has been given the CLI's own list (or a remembered one); guarded by mu
	efforts    map[string][]string // effort levels by model (effortLevels); guarded by mu
	effort     string              // reasoning effort, or effortDefault; guarded by mu
	rejects    map[string]bool     // "always reject" rules (ruleKey); guarded by mu
	informed   bool                // commands and options were sent once; guarded by mu
	title      string              // the title last sent in session_info_update; guarded by mu
	transcript string              // where the CLI stores the conversation, once found; guarded by mu
	// commands is the slash command list last sent (commandsSent: at all);
	// guarded by mu.
	commands     []acp.AvailableCommand
	commandsSent bool
	closed       bool // guarded by mu
	// kids are the child sessions running now (subagent.go), for
	// CancelChild; guarded by mu.
	kids map[acp.SessionID]bool
	// children is the editor's client of each child session; nil when the
	// editor takes no child sessions. Guarded by turnMu, like tr.
	children   map[acp.SessionID]acp.Client
	childMaker acp.ChildClient
}

var _ acp.Session = (*Session)(nil)

// run is one CLI process. err, p and c are written by the start goroutine
// before ready is closed and only read after it.
type run struct {
	ready chan struct{}
	err   error
	p     proc.Process
	c     *conn
	// starting bounds the wait for initialize (StartTimeout); abort ends
	// it early, when the prompt that waits for the start is cancelled.
	starting context.Context
	abort    context.CancelFunc
}

// ID returns the ACP session id (also the CLI's session id).
func (s *Session) ID() acp.SessionID { return s.id }

// State returns the session's modes and config options. Its Commands are
// nil: the slash commands are sent as available_commands_update once the CLI
// has listed them (it may not have when session/new is answered).
func (s *Session) State() acp.SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return acp.SessionState{
		Modes:         modeStateOf(s.a.dialect, s.mode, s.a.bypass),
		ConfigOptions: s.optionsLocked(),
	}
}

// Prompt runs one turn; see the package documentation for how it ends.
func (s *Session) Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	msg, err := promptFrame(req.Prompt, s.log)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)() // Close ends the turn
	r, err := s.ensure(ctx)
	if err != nil {
		// A closed session is an error even when the AfterFunc above has
		// cancelled ctx meanwhile: only a turn that was running is
		// cancelled by Close.
		if ctx.Err() != nil && !errors.Is(err, errSessionClosed) {
			s.abortStart()
			return acp.StopReasonCancelled, nil
		}
		return "", err
	}
	if err := s.drainStale(ctx, r); err != nil {
		return "", err
	}
	s.mu.Lock()
	first := !s.resume
	s.resume = true
	s.mu.Unlock()
	if first {
		s.titleFromPrompt(req.Prompt)
	}
	t := &turn{s: s, r: r, ctx: ctx}
	stop, err := t.play(msg)
	if err == nil {
		s.sendInfo()
	}
	return stop, err
}

// drainStale translates what the CLI wrote between turns (a background
// agent's follow-up, a mode change) so it is not mistaken for this turn's end.
func (s *Session) drainStale(ctx context.Context, r *run) error {
	t := &turn{s: s, r: r, ctx: ctx}
	for {
		ev, ok := r.c.pop()
		if !ok {
			return nil
		}
		if ev.exit {
			return s.died(r, ev.err)
		}
		t.handle(ev)
		r.c.recycle(ev)
	}
}

// ensure returns the running process, starting it when there is none (or
// the last one died) and waiting for its initialize answer.
func (s *Session) ensure(ctx context.Context) (*run, error) {
	for attempt := 0; ; attempt++ {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, errSessionClosed
		}
		r := s.cur
		if r == nil {
			r = s.startLocked()
		}
		s.mu.Unlock()
		select {
		case <-r.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		switch {
		case r.err != nil:
			s.drop(r)
			return nil, r.err
		case r.c.isDone() && attempt == 0:
			s.drop(r) // died while idle: start again, once
		case r.c.isDone():
			return nil, s.died(r, r.c.exitError())
		default:
			return r, nil
		}
	}
}

// abortStart gives up a start that has not answered initialize yet: the
// prompt waiting for it was cancelled, and a CLI that hangs at start-up
// must not outlive that. The next prompt starts a new process.
func (s *Session) abortStart() {
	s.mu.Lock()
	r := s.cur
	if r == nil {
		s.mu.Unlock()
		return
	}
	select {
	case <-r.ready:
		s.mu.Unlock()
		return // started (or failed) already
	default:
	}
	s.cur = nil
	s.mu.Unlock()
	r.abort() // launch stops the process
}

// drop forgets r if it is the current process, so the next call restarts.
// Nobody consumes r's events any more, so its reader must not wait for room
// (Close waits for it).
func (s *Session) drop(r *run) {
	s.mu.Lock()
	if s.cur == r {
		s.cur = nil
	}
	s.mu.Unlock()
	if r.c != nil {
		r.c.release()
	}
}

// died forgets a process that went away and describes why, with the tail of
// its stderr.
func (s *Session) died(r *run, err error) error {
	s.drop(r)
	s.tr.endChildren(nil) // their work ended with the CLI, not by a cancel
	return exitError(err, r.p.StderrTail())
}

// kill stops a process that did not react to an interrupt. The stop runs in
// the background, so the cancelled turn is answered at once: a hung CLI
// (SIGSTOPped, say) takes the whole escalation to SIGKILL. Close waits for
// it; the process's events are no longer consumed (drop), so nothing of the
// turn reaches the editor after its answer.
func (s *Session) kill(r *run) {
	s.drop(r)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 4*s.a.opts.StopGrace)
		defer cancel()
		if err := r.p.Stop(ctx); err != nil {
			s.log.Warn().Err(err).Msg("stopping claude")
		}
	}()
}

// startLocked starts a process in the background. Callers hold mu.
func (s *Session) startLocked() *run {
	r := &run{ready: make(chan struct{})}
	r.starting, r.abort = context.WithTimeout(s.ctx, s.a.opts.StartTimeout)
	s.cur = r
	spec := s.spec(s.resume, s.mode, s.model)
	if s.effort != effortDefault && s.a.dialect.isClaude() {
		// The effort chosen in this session outlives a restart.
		spec.Args = append(spec.Args, "--effort", s.effort)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(r.ready)
		defer r.abort()
		s.launch(r, spec)
	}()
	return r
}

// launch starts the CLI and sends initialize.
func (s *Session) launch(r *run, spec proc.Spec) {
	p, err := s.a.opts.Launch(s.procCtx, spec)
	if err != nil {
		r.err = s.startError(err, spec.Dir)
		return
	}
	r.p = p
	r.c = newConn(p, s.log, s.a.opts.Trace, s.a.opts.ReadWindow)
	if m := s.a.dialect.Messages; m.renames() {
		r.c.in, r.c.out = m.inbound, m.outbound
	}
	r.c.start(&s.wg)
	init := map[string]any{}
	if s.efs != nil {
		init["sdkMcpServers"] = []string{editorFSServer}
	}
	if s.a.dialect.isClaude() {
		// A sub-agent's text reaches stdout only when asked for
		// (subagent.go), and it belongs under its Agent call.
		init["forwardSubagentText"] = true
	}
	body, err := r.c.request(r.starting, "initialize", init)
	if err != nil {
		if !r.c.isDone() {
			r.c.release()
			s.stop(p)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			r.err = s.startTimeoutError(spec.Path)
			return
		}
		r.err = exitError(err, p.StderrTail())
		return
	}
	s.applyInit(s.a.dialect.lists(r.starting, r.c, body, s.log))
}

// startTimeoutError says which CLI did not answer initialize in time.
func (s *Session) startTimeoutError(path string) error {
	d, dl := s.a.opts.StartTimeout, s.a.dialect
	who, hint := dl.Name, "--start-timeout or ACPBRIDGE_CLAUDE_START_TIMEOUT"
	if !dl.isClaude() {
		who, hint = "the "+dl.Name+" dialect's CLI", "--start-timeout"
	}
	msg := fmt.Sprintf("%s (%s) did not answer its initialize request within %v and was stopped; "+
		"raise the limit with %s if it is only slow", who, path, d, hint)
	return acp.NewError(acp.CodeInternalError, msg,
		map[string]any{"path": path, "timeout": d.String(), "dialect": dl.Name})
}

// startError describes a failure to start the CLI. The launcher's error
// already says what it was starting ("starting claude: ..."). With the real
// launcher, a working directory removed since the session opened makes
// fork/exec fail with ENOENT under the executable's name, so that case
// names the directory. (In-process stand-ins never enter the directory.)
func (s *Session) startError(err error, dir string) error {
	if s.a.lookPath && dir != "" && errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil {
			return fmt.Errorf("%w: the session's working directory cannot be used: %v", acp.ErrInternal, serr)
		}
	}
	return fmt.Errorf("%w: %v", acp.ErrInternal, err)
}

// stop ends a process gracefully (close stdin, then signals).
func (s *Session) stop(p proc.Process) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*s.a.opts.StopGrace)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		s.log.Debug().Err(err).Msg("stopping claude")
	}
}

// Close ends the turn (if any), stops the process and waits for every
// goroutine of the session. It is idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	r := s.cur
	s.cur = nil
	s.mu.Unlock()
	s.cancel()
	if r != nil {
		<-r.ready
		if r.p != nil && !r.c.isDone() {
			r.c.release()
			s.stop(r.p)
		}
	}
	s.procEnd()
	s.wg.Wait()
	// No child is left running: the turn that ran them has ended (Close
	// cancels it), so the translator is free.
	s.turnMu.Lock()
	s.tr.endChildren(acp.Ptr(acp.StopReasonCancelled))
	s.turnMu.Unlock()
	s.a.forget(s.id)
	return nil
}

// update sends one session/update. Failures are logged: the editor may be
// gone, and the turn still has to end properly.
func (s *Session) update(u acp.SessionUpdate) {
	err := s.client.SessionUpdate(s.updateCtx, acp.SessionNotification{SessionID: s.id, Update: u})
	if err != nil && !errors.Is(err, context.Canceled) {
		s.log.Debug().Err(err).Str("update", u.Kind()).Msg("sending session update")
	}
}
