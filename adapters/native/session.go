package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// session is one ACP session, served by its own agent process: the session
// id is the agent's, one to one, and stopping the process (close, a cancel
// the agent ignores) touches no other session.
type session struct {
	a  *Adapter
	id acp.SessionID
	rc *quirkClient // the editor, through the fixes of quirks
	// reopen is the opening request's params (cwd, mcpServers, _meta), from
	// which a re-attach after the agent died is built.
	reopen map[string]json.RawMessage
	dir    string

	mu     sync.Mutex
	conn   *agentConn // guarded by mu; the live agent, or the one that died
	closed bool       // guarded by mu
	// cancelled is closed once the last session/cancel Notify was handed
	// with no turn running has been written to the agent (nil: none);
	// guarded by mu. What the session sends next waits for it.
	cancelled chan struct{}
	cancels   sync.WaitGroup // the writes of those cancels; Close waits
}

var _ acp.RawSession = (*session)(nil)

// Open starts an agent for the session, or takes over one that serves no
// session (see spare), and forwards the opening request (session/new, load,
// resume or fork) unchanged. A fork runs in an agent of its own like any
// session: the agent forks the session it has stored.
func (a *Adapter) Open(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) (acp.RawSession, json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, nil, acp.InvalidParams("params", err.Error())
	}
	var dir string
	json.Unmarshal(fields["cwd"], &dir)
	if method == acp.MethodSessionLoad && a.capabilities().loadWithheld {
		return nil, nil, acp.NewError(acp.CodeMethodNotFound,
			"Method not found: session/load is not offered: "+a.opts.Name+"'s load loses the stored session; its turns stay on disk for the agent's own resume", nil)
	}
	q := newQuirkClient(rc)
	c := a.spare(ctx, dir, q)
	spared := c != nil
	if !spared {
		var err error
		if c, _, err = a.dial(ctx, dir, rc.InitializeParams(), q); err != nil {
			return nil, nil, err
		}
	}
	res, err := c.call(ctx, method, params)
	var refused *acp.Error
	switch {
	case err != nil && spared && errors.As(err, &refused) && c.err() == nil:
		a.unspare(c)
		return nil, nil, err
	case err != nil:
		c.stop(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	res = q.cfg.fixOpen(res)
	var id acp.SessionID
	if method == acp.MethodSessionNew || method == acp.MethodSessionFork {
		// A fork is a new session with an id of the agent's, as
		// session/new's; the session it was forked from stays with its
		// own agent.
		var r struct {
			SessionID acp.SessionID `json:"sessionId"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.SessionID == "" {
			c.stop(context.WithoutCancel(ctx))
			return nil, nil, fmt.Errorf("%s answered %s without a sessionId: %s", a.opts.Name, method, res)
		}
		id = r.SessionID
	} else {
		json.Unmarshal(fields["sessionId"], &id)
	}
	delete(fields, "sessionId")
	return &session{a: a, id: id, rc: q, reopen: fields, dir: dir, conn: c}, res, nil
}

func (s *session) ID() acp.SessionID { return s.id }

// live returns the session's agent, restarting it and re-attaching the
// session when the last one died.
func (s *session) live(ctx context.Context) (*agentConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("session closed")
	}
	if s.conn != nil && s.conn.err() == nil {
		return s.conn, nil
	}
	caps := s.a.capabilities()
	method := acp.MethodSessionLoad
	switch {
	case caps.resume:
		method = acp.MethodSessionResume
	case !caps.load:
		return nil, fmt.Errorf("%s stopped (%v) and cannot reopen session %s: it offers neither session/load nor session/resume; open a new session",
			s.a.opts.Name, s.conn.err(), s.id)
	}
	c, _, err := s.a.dial(ctx, s.dir, s.rc.InitializeParams(), s.rc)
	if err != nil {
		return nil, fmt.Errorf("restarting %s: %w", s.a.opts.Name, err)
	}
	fields := make(map[string]json.RawMessage, len(s.reopen)+1)
	for k, v := range s.reopen {
		fields[k] = v
	}
	fields["sessionId"], _ = json.Marshal(s.id)
	params, _ := json.Marshal(fields)
	// The editor has this session's history already: a load's replay is
	// not forwarded again.
	c.filter.Store(method == acp.MethodSessionLoad)
	_, err = c.call(ctx, method, params)
	c.filter.Store(false)
	if err != nil {
		c.stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("re-attaching session %s with %s after %s stopped: %w", s.id, method, s.a.opts.Name, err)
	}
	s.a.opts.Logger.Info().Str("session", string(s.id)).Str("method", method).Msg("agent restarted and session re-attached")
	s.conn = c
	return c, nil
}

// Forward sends one request about the session to its agent.
func (s *session) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := s.cancelSent(ctx); err != nil {
		return nil, err
	}
	c, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	if method == acp.MethodSessionPrompt {
		res, err := s.prompt(ctx, c, params)
		s.rc.settle(context.WithoutCancel(ctx), s.id)
		return zeroUsage(res, ctx.Err() != nil), err
	}
	if res, handled, err := s.rc.cfg.forward(ctx, c, s.id, method, params); handled {
		return res, err
	}
	return c.call(ctx, method, params)
}

// prompt runs one turn. session/cancel goes to the agent as soon as ctx is
// cancelled; if the agent has not answered within the grace, it is stopped
// and the turn ends here, after the reader has stopped, so nothing of the
// turn reaches the editor after its answer.
func (s *session) prompt(ctx context.Context, c *agentConn, params json.RawMessage) (json.RawMessage, error) {
	p, err := c.start(acp.MethodSessionPrompt, params)
	if err != nil {
		return nil, err
	}
	if res, err := p.wait(ctx); !waitedOut(ctx, err) {
		return res, err
	}
	c.notify(acp.MethodSessionCancel, cancelParams(ctx, s.id))
	grace, cancel := context.WithTimeout(context.Background(), s.a.opts.CancelGrace)
	defer cancel()
	if res, err := p.wait(grace); !waitedOut(grace, err) {
		return res, err
	}
	s.a.opts.Logger.Warn().Str("session", string(s.id)).Dur("grace", s.a.opts.CancelGrace).
		Msg("the agent did not end the cancelled turn in time; stopping it")
	stopped, stop := context.WithCancel(context.Background())
	stop() // straight to SIGKILL: the agent already ignored the cancel
	c.stop(stopped)
	return nil, context.Cause(ctx)
}

// Notify forwards a notification about the session to its agent, if it
// runs. session/cancel comes from the bridge's read loop (a cancel with no
// turn running, see bridge/acp.RawSession): it is written off the caller's
// path, as a hung agent's full stdin pipe must not stall the editor's
// connection, and what the session sends next waits for it, so a prompt
// the editor sent after the cancel is not cancelled by it.
func (s *session) Notify(ctx context.Context, method string, params json.RawMessage) error {
	if method == acp.MethodSessionCancel {
		return s.cancelLater(params)
	}
	if err := s.cancelSent(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil || c.err() != nil {
		return fmt.Errorf("%s is not running", s.a.opts.Name)
	}
	c.notify(method, params)
	return nil
}

// cancelLater writes a session/cancel to the agent in a goroutine of its
// own, after the one before it.
func (s *session) cancelLater(params json.RawMessage) error {
	params = append(json.RawMessage(nil), params...)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	if s.closed || c == nil || c.err() != nil {
		return fmt.Errorf("%s is not running", s.a.opts.Name)
	}
	prev, done := s.cancelled, make(chan struct{})
	s.cancelled = done
	s.cancels.Add(1)
	go func() {
		defer s.cancels.Done()
		defer close(done)
		if prev != nil {
			<-prev
		}
		c.notify(acp.MethodSessionCancel, params)
	}()
	return nil
}

// cancelSent waits until the cancels handed to Notify have been written.
func (s *session) cancelSent(ctx context.Context) error {
	s.mu.Lock()
	ch := s.cancelled
	s.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Close stops the session's agent and waits for it. It is idempotent.
func (s *session) Close() error {
	s.mu.Lock()
	c := s.conn
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already || c == nil {
		return nil
	}
	// Stopping the agent ends a cancel's write it may be blocking.
	err := c.stop(context.Background())
	s.cancels.Wait()
	if err != nil && c.err() == nil {
		return err
	}
	return nil
}

// cancelParams are the params of the session/cancel that ended ctx, as the
// editor sent them (its _meta and unknown fields reach the agent), or
// plain ones when the turn ended otherwise (the connection closed).
func cancelParams(ctx context.Context, id acp.SessionID) json.RawMessage {
	var cc *acp.CancelCause
	if errors.As(context.Cause(ctx), &cc) && len(cc.Params) > 0 {
		return cc.Params
	}
	p, _ := json.Marshal(acp.CancelNotification{SessionID: id})
	return p
}
