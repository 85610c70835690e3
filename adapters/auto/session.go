package auto

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// session is a session of the Adapter: the editor's id, and the session of
// the agent that serves it now.
type session struct {
	a      *Adapter
	id     acp.SessionID   // the editor's
	rc     acp.RawClient   // the bridge's client of the session
	reopen json.RawMessage // session/new params for another agent

	choosing sync.Mutex // serialises changes of agent

	mu        sync.Mutex
	agent     string // guarded by mu
	cur       inner  // guarded by mu
	relay     *relay // guarded by mu; cur's
	busy      int    // guarded by mu; requests cur is serving
	switching bool   // guarded by mu; an agent is being replaced
	closed    bool   // guarded by mu
}

var _ acp.RawSession = (*session)(nil)

func (s *session) ID() acp.SessionID { return s.id }

// Forward serves a request about the session: a choice of agent here, the
// rest by the agent's session, whose lists of config options get the
// agent option.
func (s *session) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == acp.MethodSessionSetConfigOption && configIDOf(params) == OptionID {
		return s.choose(ctx, params)
	}
	in, agent, err := s.use()
	if err != nil {
		return nil, err
	}
	defer s.done()
	res, err := in.forward(ctx, method, params)
	if err == nil && method == acp.MethodSessionSetConfigOption {
		res = withAgentRaw(res, nil, s.a.optionFor(agent))
	}
	return res, err
}

// use returns the agent's session for one request; done ends the request.
func (s *session) use() (inner, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, "", acp.NewError(acp.CodeResourceNotFound, "Resource not found: the session is closed", nil)
	case s.switching:
		return nil, "", acp.NewError(acp.CodeInvalidRequest,
			"Invalid request: the session is changing agent; wait for the answer to session/set_config_option", nil)
	}
	s.busy++
	return s.cur, s.agent, nil
}

func (s *session) done() {
	s.mu.Lock()
	s.busy--
	s.mu.Unlock()
}

// Notify passes a notification about the session (session/cancel with no
// turn running, or of one of its children) to the agent's session. It
// does not block: the lock is never held across a call to an agent.
func (s *session) Notify(ctx context.Context, method string, params json.RawMessage) error {
	s.mu.Lock()
	in, r, closed := s.cur, s.relay, s.closed
	s.mu.Unlock()
	if closed {
		return nil
	}
	if id := sessionIDOf(params); method == acp.MethodSessionCancel && id != "" && id != s.id {
		if !r.hasKid(id) {
			return nil // a child of an agent the session has left: it was stopped with it
		}
		return in.cancelChild(ctx, id, params)
	}
	return in.notify(ctx, method, params)
}

// Close ends the agent's session, which stops its processes.
func (s *session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	in, r := s.cur, s.relay
	s.mu.Unlock()
	r.retired.Store(true)
	return in.close()
}

// choose serves set_config_option of the agent option: it opens a session
// of the agent chosen with the params the session was opened with, puts it
// in place of the old one, which it closes (stopping its processes), and
// tells the user that the conversation starts anew. Refused while a turn
// or another request runs: the old agent's session would be closed under
// it.
func (s *session) choose(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var req acp.SetSessionConfigOptionRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	if req.Value.ID == nil {
		return nil, acp.InvalidParams("value", fmt.Sprintf("option %q takes one of its value ids", OptionID))
	}
	name := string(*req.Value.ID)
	if !Has(s.a.agents, name) {
		return nil, acp.InvalidParams("value", fmt.Sprintf("%q is not a value of option %q (the agents installed here)", name, OptionID))
	}
	s.choosing.Lock()
	defer s.choosing.Unlock()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, acp.NewError(acp.CodeResourceNotFound, "Resource not found: the session is closed", nil)
	case s.agent == name:
		in := s.cur
		s.mu.Unlock()
		return s.answer(name, in)
	case s.busy > 0:
		s.mu.Unlock()
		return nil, acp.NewError(acp.CodeInvalidRequest,
			"Invalid request: a turn is running; send session/cancel and wait for its answer before changing agent", nil)
	}
	s.switching = true
	old, oldRelay := s.cur, s.relay
	s.mu.Unlock()

	// The old agent's commands are not the new one's; a new agent that
	// speaks ACP sends its own as it opens.
	s.update(ctx, acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{}}})
	in, r, _, err := s.a.open(ctx, name, acp.MethodSessionNew, s.reopen, s.rc, s.id)
	s.mu.Lock()
	s.switching = false
	if err == nil && s.closed {
		err = acp.NewError(acp.CodeResourceNotFound, "Resource not found: the session was closed", nil)
		defer in.close()
	}
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.cur, s.relay, s.agent = in, r, name
	s.mu.Unlock()
	oldRelay.retired.Store(true)
	if err := old.close(); err != nil {
		s.a.opts.Logger.Warn().Err(err).Str("session", string(s.id)).Msg("closing the session of the agent left")
	}
	s.a.own(in.id(), name)
	s.tell(ctx, name)
	return s.answer(name, in)
}

// answer is set_config_option's answer: the agent option and the agent's
// own.
func (s *session) answer(agent string, in inner) (json.RawMessage, error) {
	return json.Marshal(map[string]json.RawMessage{"configOptions": agentList(in.options(), s.a.optionFor(agent))})
}

// tell says that the session now runs another agent, from scratch: as a
// notice where the editor shows them, else as agent text (ACP lets an
// agent say to a client without notices what the user must still see).
func (s *session) tell(ctx context.Context, agent string) {
	title := agent
	if i := index(s.a.agents, agent); i >= 0 {
		title = s.a.agents[i].Title
	}
	msg := fmt.Sprintf("Switched to %s. The conversation starts anew: %s does not see the earlier messages.", title, title)
	if caps := s.rc.Capabilities(); caps.Session != nil && caps.Session.Notices != nil {
		s.update(ctx, acp.SessionUpdate{Notice: &acp.Notice{Severity: acp.NoticeSeverityInfo, Title: msg}})
		return
	}
	s.update(ctx, acp.UpdateAgentText(msg+"\n\n"))
}

func (s *session) update(ctx context.Context, u acp.SessionUpdate) {
	if err := s.rc.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: u}); err != nil {
		s.a.opts.Logger.Debug().Err(err).Str("session", string(s.id)).Msg("sending an update")
	}
}

func configIDOf(params json.RawMessage) acp.SessionConfigID {
	var v struct {
		ConfigID acp.SessionConfigID `json:"configId"`
	}
	_ = json.Unmarshal(params, &v)
	return v.ConfigID
}
