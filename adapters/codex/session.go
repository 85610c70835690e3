package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Session is one ACP session: one Codex thread.
type Session struct {
	a      *Adapter
	client acp.Client
	cwd    string
	// cfg is the thread's config override (MCP servers, writable roots),
	// given again when the thread is resumed in a new app-server.
	cfg map[string]any
	// q holds the app-server's messages about the thread; a session on a
	// spare thread takes over the spare's queue, with what Codex said
	// about the thread before the session opened.
	q *queue

	// thread is the Codex thread id, also the ACP session id. Set before
	// the session is published.
	thread string
	// gen is the app-server generation the thread is loaded on; accessed
	// only by NewSession and the turn's goroutine (one at a time).
	gen int

	// closing is cancelled by Close: it ends a running turn.
	closing context.Context
	close   context.CancelFunc

	// models is Codex's model list when the session opened.
	models []model

	mu     sync.Mutex
	set    settings // guarded by mu (written before publication by opened)
	closed bool     // guarded by mu
	// live is the running turn, which steering messages join (steer.go);
	// nil between turns. Guarded by mu.
	live *turn
	// kids maps the running sub-agent threads to their running turn;
	// guarded by mu (children.go).
	kids map[string]string
	// wg counts the sub-agent interrupts CancelChild sends; Close waits.
	wg sync.WaitGroup
	// prompts counts the running Prompts; Close waits for them to end.
	prompts sync.WaitGroup

	// subs are the session's sub-agents by thread id; used only by the
	// turn's goroutine (subagent.go).
	subs map[string]*subagent
}

func newSession(a *Adapter, c acp.Client, cwd, mode string) *Session {
	closing, close := context.WithCancel(context.Background())
	return &Session{a: a, client: c, cwd: cwd, set: settings{mode: mode}, q: newQueue(),
		closing: closing, close: close}
}

// ID is the Codex thread id.
func (s *Session) ID() acp.SessionID { return acp.SessionID(s.thread) }

// State lists the approval presets as modes, and the preset, model and
// reasoning effort as config options.
func (s *Session) State() acp.SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return acp.SessionState{Modes: modeState(s.set.mode), ConfigOptions: configOptions(s.set, s.models)}
}

// SetMode switches the approval preset; it applies from the next turn.
func (s *Session) SetMode(ctx context.Context, mode acp.SessionModeID) error {
	if !validMode(string(mode)) {
		return acp.InvalidParams("modeId", fmt.Sprintf("unknown mode %q", mode))
	}
	s.mu.Lock()
	s.set.mode = string(mode)
	opts := configOptions(s.set, s.models)
	s.mu.Unlock()
	if err := s.update(ctx, acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: mode}}); err != nil {
		return err
	}
	return s.update(ctx, acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
}

// SetConfigOption sets the preset, the model or the reasoning effort; they
// apply from the next turn (turn/start carries them). A new model takes its
// own default effort.
func (s *Session) SetConfigOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	if req.Value.ID == nil {
		return nil, acp.InvalidParams("value", "a value id is required")
	}
	v := string(*req.Value.ID)
	if req.ConfigID == cfgMode {
		if err := s.SetMode(ctx, acp.SessionModeID(v)); err != nil {
			return nil, err
		}
		return s.State().ConfigOptions, nil
	}
	s.mu.Lock()
	cur := configOptions(s.set, s.models)
	if !hasValue(cur, req.ConfigID, v) {
		s.mu.Unlock()
		return nil, acp.InvalidParams("value", fmt.Sprintf("%q is not a value of config option %q", v, req.ConfigID))
	}
	switch req.ConfigID {
	case cfgModel:
		if s.set.model != v {
			s.set.model, s.set.effort = v, ""
		}
	case cfgEffort:
		s.set.effort = v
	case cfgCollab:
		s.set.collab = v
	}
	opts := configOptions(s.set, s.models)
	s.mu.Unlock()
	return opts, nil
}

func (s *Session) update(ctx context.Context, u acp.SessionUpdate) error {
	return s.client.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.ID(), Update: u})
}

// Close ends the running turn (as a cancel would) and forgets the thread;
// the app-server keeps serving the others.
func (s *Session) Close() error {
	s.close()
	s.mu.Lock()
	done := s.closed
	s.closed = true
	s.mu.Unlock()
	// The cancelled turn ends its sub-agents' turns (within the cancel
	// grace) while their messages still reach it; forget then stops
	// routing them.
	s.prompts.Wait()
	if !done {
		s.a.forget(s)
	}
	s.wg.Wait()
	return nil
}

// Prompt runs one turn: turn/start, then the thread's notifications,
// translated, until turn/completed.
func (s *Session) Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.closing, cancel)()
	s.mu.Lock()
	if !s.closed { // Close waits for the prompts it did not see closed
		s.prompts.Add(1)
		defer s.prompts.Done()
	}
	s.mu.Unlock()
	srv, err := s.a.server(ctx)
	if err != nil {
		return "", err
	}
	if err := s.a.loginError(srv); err != nil {
		return "", err
	}
	s.mu.Lock()
	set := s.set
	s.mu.Unlock()
	mode := set.mode
	if s.gen != srv.gen {
		// The app-server this thread was on died: reload the thread from
		// its rollout in the new one.
		p := threadParams{ThreadID: s.thread, Cwd: s.cwd, Config: s.cfg}
		p.ApprovalPolicy, p.Sandbox = modePolicy(mode)
		if err := srv.c.Call(ctx, mThreadResume, p, nil); err != nil {
			return "", fmt.Errorf("resuming codex thread %s: %w", s.thread, err)
		}
		s.gen = srv.gen
	}
	approvalPolicy, _ := modePolicy(mode)
	var res turnResult
	// turn/start is awaited even when the prompt is cancelled meanwhile:
	// Codex starts the turn when it reads the request, and only its id
	// lets run interrupt it. Codex answers at once; StartTimeout bounds a
	// hung one.
	tctx, cancelStart := context.WithTimeout(context.WithoutCancel(ctx), s.a.opts.StartTimeout)
	defer cancelStart()
	err = srv.c.Call(tctx, mTurnStart, turnStartParams{ThreadID: s.thread, Input: promptInput(req.Prompt),
		Model: set.model, Effort: set.effort, CollaborationMode: set.collaborationMode(), ApprovalPolicy: approvalPolicy, SandboxPolicy: sandboxPolicy(mode)}, &res)
	if err != nil {
		return "", fmt.Errorf("starting a codex turn: %w", err)
	}
	t := &turn{s: s, srv: srv, id: res.Turn.ID, tr: newTranslator(), maker: s.childMaker(),
		asking: map[string]*question{}, answers: make(chan answer)}
	defer t.settle()
	defer t.leftChildren(ctx)
	s.mu.Lock()
	s.live = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.live = nil
		s.mu.Unlock()
	}()
	return t.run(ctx)
}

// turn is one running turn, driven by the Prompt goroutine.
type turn struct {
	s   *Session
	srv *appServer
	id  string
	tr  *translator
	// failure is the last error Codex reported for the turn.
	failure *codexError
	// retries counts the model request's retries Codex announced, and
	// lastRetry is the last (retry.go).
	retries   int
	lastRetry *codexError
	// textOpen: agent text went out since the last notice sent as text,
	// which then needs a blank line before it.
	textOpen bool
	// pending is the streamed text (thought: reasoning) gathered from the
	// deltas of one batch, not sent yet (see gather).
	pending strings.Builder
	thought bool
	// asking holds the questions (approvals) put to the editor and not yet
	// answered, by the app-server's request id; answers brings each one's
	// answer from the goroutine that waits for the editor. Both are used
	// only by the turn's goroutine.
	asking  map[string]*question
	answers chan answer
	// maker makes the editor's child sessions; nil when it takes none
	// (subagent.go).
	maker acp.ChildClient
	// deferred is the turn's result, held while sub-agents still run.
	deferred *ending
	// dead: the app-server ended during the turn.
	dead bool
}

func (t *turn) run(ctx context.Context) (acp.StopReason, error) {
	var (
		grace       <-chan time.Time
		interrupted chan struct{} // closed when the turn/interrupt call has ended
		answered    atomic.Bool   // set when Codex answered turn/interrupt
	)
	defer func() {
		if interrupted != nil {
			<-interrupted
		}
	}()
	done := ctx.Done()
	for {
		if stop, end, err := t.batch(ctx); end {
			return stop, err
		}
		select {
		case <-t.s.q.signal:
		case a := <-t.answers:
			t.answered(a)
		case <-t.srv.c.Done():
			if stop, end, err := t.batch(ctx); end {
				return stop, err
			}
			if interrupted != nil {
				return acp.StopReasonCancelled, nil
			}
			return "", t.crashed()
		case <-done:
			done = nil
			interrupted = make(chan struct{})
			timer := time.NewTimer(t.s.a.opts.CancelGrace)
			defer timer.Stop()
			grace = timer.C
			go t.interrupt(interrupted, &answered, t.deferred != nil)
		case <-grace:
			// Codex did not end the turn in time: answer cancelled; what
			// it still sends about this turn is ignored. If it did not
			// even answer the interrupt, it is hung (a blocked write to
			// it would block this turn too): stop it at once; the next
			// prompt starts another and resumes the thread. The interrupt
			// call has the same bound as this grace and may have just
			// ended too: what counts is whether Codex answered it.
			if !answered.Load() {
				t.s.a.opts.Logger.Warn().Msg("codex app-server did not answer turn/interrupt; stopping it")
				now, stop := context.WithCancel(context.Background())
				stop()
				_ = t.srv.p.Stop(now)
			}
			return acp.StopReasonCancelled, nil
		}
	}
}

// interrupt asks Codex to stop the turn (unless it has ended, waiting for
// sub-agents) and its sub-agents, and sets answered when Codex answers;
// bounded, so run's deferred wait cannot hang.
func (t *turn) interrupt(done chan<- struct{}, answered *atomic.Bool, ended bool) {
	defer close(done)
	kids := make(chan struct{})
	go func() {
		defer close(kids)
		t.s.interruptChildren(t.srv, t.s.a.opts.CancelGrace)
	}()
	defer func() { <-kids }()
	if ended {
		answered.Store(true)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.s.a.opts.CancelGrace)
	defer cancel()
	if err := t.srv.c.Call(ctx, mTurnInterrupt, turnRef{ThreadID: t.s.thread, TurnID: t.id}, nil); err != nil {
		t.s.a.opts.Logger.Debug().Err(err).Msg("turn/interrupt")
		return
	}
	answered.Store(true)
}

func (t *turn) crashed() error {
	t.dead = true
	werr := t.srv.p.Wait()
	if werr == nil {
		werr = errors.New("exited")
	}
	return fmt.Errorf("codex app-server ended during the turn: %w; the next prompt starts it again", werr)
}

// batch processes what the app-server has said about the thread since the
// last batch, and then sends the text gathered from it.
func (t *turn) batch(ctx context.Context) (stop acp.StopReason, end bool, err error) {
	for _, m := range t.s.q.take() {
		if stop, end, err := t.handle(ctx, m); end {
			return stop, end, err
		}
	}
	if err := t.flush(ctx); err != nil {
		return "", true, err
	}
	return "", false, nil
}

// handle processes one message about the session's thread. end reports the
// end of the turn, with its stop reason or error.
func (t *turn) handle(ctx context.Context, m *message) (stop acp.StopReason, end bool, err error) {
	if len(m.ID) == 0 && (m.Method == nAgentDelta || m.Method == nReasoningDelta || m.Method == nSummaryDelta) {
		// The stream's bulk: read with gjson rather than decoded (the
		// engine has checked the JSON).
		f := gjson.GetManyBytes(m.Params, "turnId", "delta")
		if f[0].Str == t.id && f[1].Type == gjson.String {
			if err := t.gather(ctx, f[1].Str, m.Method != nAgentDelta); err != nil {
				return "", true, err
			}
			return "", false, nil
		}
	}
	var ev event
	if err := lenient(json.Unmarshal(m.Params, &ev)); err != nil {
		return "", false, nil
	}
	child := ev.ThreadID != "" && ev.ThreadID != t.s.thread
	if !child && len(m.ID) == 0 && ev.TurnID != "" && ev.TurnID != t.id {
		return "", false, nil // an earlier turn's stragglers
	}
	// What comes next follows the text gathered so far.
	if err := t.flush(ctx); err != nil {
		return "", true, err
	}
	if child {
		return t.child(ctx, m, &ev)
	}
	if len(m.ID) > 0 {
		t.request(ctx, m, &ev)
		return "", false, nil
	}
	if n := noticeOf(m.Method, m.Params); n != nil {
		t.s.a.opts.Logger.Info().Str("notice", n.Title).Msg("codex")
		if canNotify(t.s.client) {
			_ = t.s.update(ctx, acp.SessionUpdate{Notice: n})
		}
		return "", false, nil
	}
	switch m.Method {
	case nResolved:
		t.withdraw(m.Params)
		return "", false, nil
	case nTurnCompleted:
		if ev.Turn == nil || ev.Turn.ID != t.id {
			return "", false, nil
		}
		stop, end, err := t.completed(ctx, ev.Turn)
		if end && t.childrenRunning() {
			t.deferred = &ending{stop, err} // ends with the last sub-agent
			return "", false, nil
		}
		return stop, end, err
	case nError:
		switch {
		case ev.Error != nil && ev.WillRetry:
			t.retrying(ctx, ev.Error)
		case ev.Error != nil:
			t.failure = ev.Error
		}
		return "", false, nil
	}
	if ok, err := t.agentItem(ctx, t.s.thread, m.Method, ev.Item); ok {
		if err != nil && ctx.Err() == nil {
			return "", true, err
		}
		return "", false, nil
	}
	for _, u := range t.tr.notification(m.Method, &ev) {
		if err := t.s.client.SessionUpdate(ctx, acp.SessionNotification{SessionID: t.s.ID(), Update: u}); err != nil && ctx.Err() == nil {
			return "", true, err
		}
		t.textOpen = t.textOpen || u.AgentMessageChunk != nil
	}
	return "", false, nil
}

// gather adds a text or reasoning delta to the pending chunk. The deltas
// of one batch (what the app-server wrote while the turn was busy, or
// within a read window: see readWindow) thus reach the editor as one
// chunk, the same text no later, in a fraction of the updates: a fast
// stream writes a delta a few microseconds apart, each of which would
// otherwise cost the bridge an encoding and a write, and the editor a
// wake-up and a parse. The pending chunk goes out before anything else
// and at the end of the batch.
func (t *turn) gather(ctx context.Context, delta string, thought bool) error {
	if t.pending.Len() > 0 && thought != t.thought {
		if err := t.flush(ctx); err != nil {
			return err
		}
	}
	t.thought = thought
	t.pending.WriteString(delta)
	if t.s.a.opts.ReadWindow <= 0 {
		// Without a read window (an in-process stand-in, a replay) every
		// delta is a chunk of its own, as the recording has it: what a
		// batch holds would depend on scheduling.
		return t.flush(ctx)
	}
	return nil
}

// flush sends the pending chunk, if any. An editor that cannot be written
// to ends the turn, unless the turn is ending anyway.
func (t *turn) flush(ctx context.Context) error {
	if t.pending.Len() == 0 {
		return nil
	}
	text := t.pending.String()
	t.pending.Reset()
	for _, u := range chunk(text, t.thought) {
		if err := t.s.client.SessionUpdate(ctx, acp.SessionNotification{SessionID: t.s.ID(), Update: u}); err != nil && ctx.Err() == nil {
			return err
		}
	}
	t.textOpen = t.textOpen || !t.thought
	return nil
}

func (t *turn) completed(ctx context.Context, ti *turnInfo) (acp.StopReason, bool, error) {
	switch ti.Status {
	case "interrupted":
		return acp.StopReasonCancelled, true, nil
	case "failed":
		if ctx.Err() != nil {
			return acp.StopReasonCancelled, true, nil
		}
		f := t.failure
		if ti.Error != nil && ti.Error.Message != "" {
			f = ti.Error
		}
		if f == nil {
			f = &codexError{Message: "no reason given"}
		}
		if unauthorized(f.Info) {
			// The provider refused Codex's credentials: the editor can
			// authenticate and retry (ACP auth-required).
			return "", true, authRequired(f.Message)
		}
		return "", true, t.failed(f)
	}
	return acp.StopReasonEndTurn, true, nil
}
