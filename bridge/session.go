package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// session is the bridge's record of one open ACP session: the adapter's
// side of it (a typed Session or a Forwarder's RawSession, behind one
// conduit), the editor-facing client it emits through, and the running
// turn.
type session struct {
	id     acp.SessionID
	agent  conduit
	client *sessionClient

	mu   sync.Mutex
	turn *turn // guarded by mu; nil when idle
	// arriving holds the session/prompt calls read for this session whose
	// turn has not begun, by request id, each with the cause of a
	// session/cancel read after it (nil for none): the read loop reads a
	// cancel right behind its prompt before the prompt's goroutine begins
	// the turn, which must still end cancelled. Guarded by mu.
	arriving map[jsonrpc.ID]error
}

// cancel ends the running turn, if any, and withdraws the session's pending
// permission requests (ACP session/cancel). It never blocks. It returns the
// turn it cancelled, or nil.
func (s *session) cancel() *turn {
	t, _ := s.cancelBy(nil)
	return t
}

// cancelBy is cancel for the editor's session/cancel, whose params (when
// given) ride in the turn's cancel cause as *acp.CancelCause: an agent that
// speaks ACP itself is sent them unchanged, _meta included. It cancels the
// prompts read before it whose turns have not begun as well (arriving);
// idle reports that there was nothing to cancel, neither a turn nor such a
// prompt.
func (s *session) cancelBy(params json.RawMessage) (t *turn, idle bool) {
	cause := errCancelledByClient
	if params != nil {
		cause = fmt.Errorf("%w: %w", errCancelledByClient, &acp.CancelCause{Params: append(json.RawMessage(nil), params...)})
	}
	s.mu.Lock()
	t = s.turn
	// The prompts read before this cancel and not begun yet are cancelled
	// too: begin starts their turns cancelled.
	for id, c := range s.arriving {
		if c == nil {
			s.arriving[id] = cause
		}
	}
	early := len(s.arriving) > 0
	s.mu.Unlock()
	if t != nil {
		t.cancel(cause)
	}
	s.client.withdrawPermissions()
	return t, t == nil && !early
}

// cancelIdle passes a session/cancel that found no turn running to an
// agent that speaks ACP itself: ACP's cancel is for the session's ongoing
// operations, which need not be a turn (a cancel racing the turn's answer,
// or one withdrawing what the agent has pending), and the agent may get it
// at any time. The bridge runs every turn of the other adapters, so for
// them nothing is under way and nothing is sent (conduit.notify). It runs
// in the read loop: RawSession.Notify of session/cancel does not block.
func (s *session) cancelIdle(ctx context.Context, params json.RawMessage) {
	if err := s.agent.notify(ctx, acp.MethodSessionCancel, params, nil); err != nil {
		s.client.log.Debug().Err(err).Msg("forwarding session/cancel with no turn running")
	}
}

// close cancels the turn, closes the adapter's session and waits for the turn
// to finish, so no update of it can be written afterwards.
func (s *session) close() {
	s.cancel()
	if err := s.agent.Close(); err != nil {
		s.client.log.Warn().Err(err).Msg("closing session")
	}
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		<-t.done
	}
}

// state is the session's modes, config options and commands; a
// RawSession's are in its agent's answers.
func (s *session) state() acp.SessionState { return s.agent.state() }

// register adds an opened session to the connection. It fails when the
// connection is shutting down or the id is taken, closing the session in
// that case.
func (c *connection) register(agent conduit, cl *sessionClient) (*session, error) {
	s := &session{id: agent.ID(), agent: agent, client: cl}
	c.mu.Lock()
	_, taken := c.sessions[s.id]
	closing := c.closing
	if !taken && !closing {
		c.sessions[s.id] = s
	}
	c.mu.Unlock()
	switch {
	case closing:
		s.agent.Close()
		return nil, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: connection is closing", nil)
	case taken:
		// load/resume of a session already open here: keep the open one.
		s.agent.Close()
		return nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
			"Invalid request: session "+string(s.id)+" is already open on this connection", nil)
	}
	c.log.Info().Str("session", string(s.id)).Msg("session opened")
	return s, nil
}

// opened is the answer for a session that was just opened. Its commands go
// out as available_commands_update after the answer, never before (clients
// drop updates for sessions they do not know yet), and so do updates the
// adapter sent while it was starting.
func (c *connection) opened(s *session, answer any) any {
	st := s.state()
	return jsonrpc.Then(answer, func() {
		s.client.open()
		if st.Commands != nil {
			n := acp.SessionNotification{SessionID: s.id, Update: acp.SessionUpdate{
				AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: st.Commands},
			}}
			if err := s.client.SessionUpdate(context.Background(), n); err != nil {
				c.log.Debug().Err(err).Msg("sending available commands")
			}
		}
	})
}

func (c *connection) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.NewSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := c.requireAuth(); err != nil {
		return nil, err
	}
	if f, ok := c.srv.adapter.(acp.Forwarder); ok {
		// The answer is the agent's, with what the bridge does not model.
		return c.openRaw(ctx, f, acp.MethodSessionNew, "", params)
	}
	s, st, err := c.openTyped(func(cl *sessionClient) (acp.Session, error) { return c.srv.adapter.NewSession(ctx, req, cl) })
	if err != nil {
		return nil, err
	}
	return c.opened(s, acp.NewSessionResponse{
		SessionID: s.id, Modes: st.Modes, ConfigOptions: st.ConfigOptions,
	}), nil
}

// openTyped opens a session of a typed adapter through open (new, fork),
// registers it, and returns it with its state.
func (c *connection) openTyped(open func(*sessionClient) (acp.Session, error)) (*session, acp.SessionState, error) {
	cl := c.newSessionClient(false)
	impl, err := open(cl)
	if err != nil {
		return nil, acp.SessionState{}, err
	}
	cl.bind(impl.ID())
	s, err := c.register(typedConduit{impl}, cl)
	if err != nil {
		return nil, acp.SessionState{}, err
	}
	return s, impl.State(), nil
}

// loadSession replays the stored conversation (the adapter writes it through
// the client as it goes, before this answer) and then answers.
func (c *connection) loadSession(ctx context.Context, params json.RawMessage) (any, error) {
	l, ok := c.srv.adapter.(acp.Loader)
	f, fw := c.srv.adapter.(acp.Forwarder)
	if !ok && !fw {
		return nil, unsupported(acp.MethodSessionLoad, "this agent cannot load sessions (loadSession is false)")
	}
	var req acp.LoadSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if !ok {
		return c.openRaw(ctx, f, acp.MethodSessionLoad, req.SessionID, params)
	}
	st, s, err := c.reopen(req.SessionID, false, func(cl *sessionClient) (acp.Session, error) {
		return l.LoadSession(ctx, req, cl)
	})
	if err != nil {
		return nil, err
	}
	return c.opened(s, acp.LoadSessionResponse{Modes: st.Modes, ConfigOptions: st.ConfigOptions}), nil
}

// resumeSession reopens a stored session without replaying it.
func (c *connection) resumeSession(ctx context.Context, params json.RawMessage) (any, error) {
	r, ok := c.srv.adapter.(acp.Resumer)
	f, fw := c.srv.adapter.(acp.Forwarder)
	if !ok && !fw {
		return nil, unsupported(acp.MethodSessionResume, "this agent cannot resume sessions")
	}
	var req acp.ResumeSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if !ok {
		return c.openRaw(ctx, f, acp.MethodSessionResume, req.SessionID, params)
	}
	st, s, err := c.reopen(req.SessionID, true, func(cl *sessionClient) (acp.Session, error) {
		return r.ResumeSession(ctx, req, cl)
	})
	if err != nil {
		return nil, err
	}
	return c.opened(s, acp.ResumeSessionResponse{Modes: st.Modes, ConfigOptions: st.ConfigOptions}), nil
}

// reopen opens a stored session through open and registers it. The client
// knows the id already (it asked for it), so updates go out at once: a load
// replays its history before the answer, as ACP requires.
//
// A session already open on this connection is how a client re-attaches
// after losing messages (Streamable HTTP answers 409 until it does): resume
// answers the open session's state, and load closes it and loads it again,
// replaying the whole history. Neither is allowed while a turn runs.
func (c *connection) reopen(id acp.SessionID, resume bool, open func(*sessionClient) (acp.Session, error)) (acp.SessionState, *session, error) {
	if err := c.requireAuth(); err != nil {
		return acp.SessionState{}, nil, err
	}
	if old := c.session(id); old != nil {
		if old.running() {
			return acp.SessionState{}, nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
				"Invalid request: session "+string(id)+" has a turn running; send session/cancel first", nil)
		}
		if resume {
			return old.state(), old, nil
		}
		c.forget(old)
		old.close()
	}
	cl := c.newSessionClient(true)
	cl.bind(id)
	impl, err := open(cl)
	if err != nil {
		return acp.SessionState{}, nil, err
	}
	s, err := c.register(typedConduit{impl}, cl)
	if err != nil {
		return acp.SessionState{}, nil, err
	}
	return impl.State(), s, nil
}

func (c *connection) listSessions(ctx context.Context, params json.RawMessage) (any, error) {
	l, ok := c.srv.adapter.(acp.Lister)
	if f, fw := c.srv.adapter.(acp.Forwarder); !ok && fw {
		return c.forward(ctx, f, acp.MethodSessionList, params)
	}
	if !ok {
		return nil, unsupported(acp.MethodSessionList, "this agent cannot list sessions")
	}
	var req acp.ListSessionsRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	res, err := l.ListSessions(ctx, req)
	if err != nil {
		return nil, err
	}
	res.Sessions = nonNil(res.Sessions)
	return res, nil
}

// closeSession cancels the session's turn, stops what the adapter started for
// it and forgets it.
func (c *connection) closeSession(_ context.Context, params json.RawMessage) (any, error) {
	var req acp.CloseSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	c.forget(s)
	s.close()
	c.log.Info().Str("session", string(s.id)).Msg("session closed")
	return acp.CloseSessionResponse{}, nil
}

// deleteSession deletes a stored session. A session this connection has
// open is closed first, as session/close would: deleting a conversation
// that is still running would leave its process writing a transcript that
// no longer exists.
func (c *connection) deleteSession(ctx context.Context, params json.RawMessage) (any, error) {
	d, ok := c.srv.adapter.(acp.Deleter)
	if f, fw := c.srv.adapter.(acp.Forwarder); !ok && fw {
		return c.forward(ctx, f, acp.MethodSessionDelete, params)
	}
	if !ok {
		return nil, unsupported(acp.MethodSessionDelete, "this agent cannot delete sessions")
	}
	var req acp.DeleteSessionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if s := c.session(req.SessionID); s != nil {
		c.forget(s)
		s.close()
		c.log.Info().Str("session", string(s.id)).Msg("session closed for deletion")
	}
	if err := d.DeleteSession(ctx, req); err != nil {
		return nil, err
	}
	c.log.Info().Str("session", string(req.SessionID)).Msg("session deleted")
	return acp.DeleteSessionResponse{}, nil
}

// forget removes s from the connection, if it is still the registered one.
func (c *connection) forget(s *session) {
	c.mu.Lock()
	if c.sessions[s.id] == s {
		delete(c.sessions, s.id)
		c.forgetChildrenLocked(s.id)
	}
	c.mu.Unlock()
}

// running reports whether a turn is in progress.
func (s *session) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn != nil
}

// arrive records a session/prompt call the read loop has read (see
// arriving); a request id already there (reused while in flight, which the
// connection refuses) keeps its entry.
func (s *session) arrive(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.arriving[id]; ok {
		return
	}
	if s.arriving == nil {
		s.arriving = map[jsonrpc.ID]error{}
	}
	s.arriving[id] = nil
}

// arrived forgets a prompt recorded by arrive whose handler has ended,
// whether or not it began a turn.
func (s *session) arrived(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.arriving, id)
}
