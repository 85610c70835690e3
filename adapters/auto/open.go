package auto

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Open opens a session with the default agent (session/new), or with the
// agent that holds the stored session (load, resume, and fork, whose new
// session has an id of that agent's), and adds the agent option to the
// answer.
func (a *Adapter) Open(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) (acp.RawSession, json.RawMessage, error) {
	if a.def < 0 {
		return nil, nil, a.noAgent()
	}
	agent, outer := a.defaultName(), acp.SessionID("")
	switch method {
	case acp.MethodSessionNew:
	case acp.MethodSessionFork:
		agent = a.owner(sessionIDOf(params))
	default:
		outer = sessionIDOf(params)
		agent = a.owner(outer)
	}
	in, r, res, err := a.open(ctx, agent, method, params, rc, outer)
	if err != nil {
		return nil, nil, err
	}
	if outer == "" {
		outer = in.id()
		r.setOuter(outer)
	}
	a.own(outer, agent)
	s := &session{a: a, id: outer, rc: rc, reopen: reopenParams(params), agent: agent, cur: in, relay: r}
	return s, withAgentRaw(res, nil, a.optionFor(agent)), nil
}

// open opens a session of the agent named with method (session/new, load
// or resume) and params, through a relay to rc. outer is the id the
// editor knows the session by ("" for a new one: the agent's).
func (a *Adapter) open(ctx context.Context, agent, method string, params json.RawMessage, rc acp.RawClient, outer acp.SessionID) (inner, *relay, json.RawMessage, error) {
	c, err := a.child(agent)
	if err != nil {
		return nil, nil, nil, err
	}
	r := &relay{RawClient: rc, agent: agent, option: a.optionFor, outer: outer,
		own: func(id acp.SessionID) { a.own(id, agent) }}
	if f, ok := c.a.(acp.Forwarder); ok {
		rs, res, err := f.Open(ctx, method, params, r)
		if err != nil {
			return nil, nil, nil, err
		}
		r.seen(optionsOf(res))
		return rawInner{rs: rs, r: r}, r, res, nil
	}
	if au, ok := c.a.(acp.Authenticator); ok && !au.Authenticated() {
		methods := c.a.Info().AuthMethods
		a.learnTyped(agent, methods)
		return nil, nil, nil, acp.NewError(acp.CodeAuthRequired, "Authentication required: "+c.agent.Title+" is not logged in",
			map[string]any{"authMethods": nonNil(methods)})
	}
	var cl acp.Client = r
	if cc, ok := rc.(acp.ChildClient); ok {
		cl = childRelay{relay: r, cc: cc}
	}
	s, res, err := openTyped(ctx, c, method, params, cl)
	if err != nil {
		return nil, nil, nil, err
	}
	if cmds := s.State().Commands; cmds != nil {
		n := acp.SessionNotification{SessionID: outer, Update: acp.SessionUpdate{
			AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: cmds}}}
		if err := r.SessionUpdate(ctx, n); err != nil {
			a.opts.Logger.Debug().Err(err).Msg("sending available commands")
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	return typedInner{s: s}, r, b, nil
}

// openTyped opens a session of an agent served through the typed
// contract, and answers as the bridge would for it alone.
func openTyped(ctx context.Context, c *child, method string, params json.RawMessage, cl acp.Client) (acp.Session, any, error) {
	switch method {
	case acp.MethodSessionNew:
		var req acp.NewSessionRequest
		if err := acp.DecodeParams(params, &req); err != nil {
			return nil, nil, err
		}
		s, err := c.a.NewSession(ctx, req, cl)
		if err != nil {
			return nil, nil, err
		}
		st := s.State()
		return s, acp.NewSessionResponse{SessionID: s.ID(), Modes: st.Modes, ConfigOptions: st.ConfigOptions}, nil
	case acp.MethodSessionLoad:
		l, ok := c.a.(acp.Loader)
		if !ok {
			return nil, nil, cannot(c, "load")
		}
		var req acp.LoadSessionRequest
		if err := acp.DecodeParams(params, &req); err != nil {
			return nil, nil, err
		}
		s, err := l.LoadSession(ctx, req, cl)
		if err != nil {
			return nil, nil, err
		}
		st := s.State()
		return s, acp.LoadSessionResponse{Modes: st.Modes, ConfigOptions: st.ConfigOptions}, nil
	case acp.MethodSessionResume:
		r, ok := c.a.(acp.Resumer)
		if !ok {
			return nil, nil, cannot(c, "resume")
		}
		var req acp.ResumeSessionRequest
		if err := acp.DecodeParams(params, &req); err != nil {
			return nil, nil, err
		}
		s, err := r.ResumeSession(ctx, req, cl)
		if err != nil {
			return nil, nil, err
		}
		st := s.State()
		return s, acp.ResumeSessionResponse{Modes: st.Modes, ConfigOptions: st.ConfigOptions}, nil
	case acp.MethodSessionFork:
		return forkTyped(ctx, c, params, cl)
	}
	return nil, nil, acp.NewError(acp.CodeMethodNotFound, "Method not found", map[string]any{"method": method})
}

// forkTyped forks a stored session of an agent served through the typed
// contract: a new session, with an id of the agent's.
func forkTyped(ctx context.Context, c *child, params json.RawMessage, cl acp.Client) (acp.Session, any, error) {
	f, ok := c.a.(acp.Forker)
	if !ok {
		return nil, nil, cannot(c, "fork")
	}
	var req acp.ForkSessionRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, nil, err
	}
	s, err := f.ForkSession(ctx, req, cl)
	if err != nil {
		return nil, nil, err
	}
	st := s.State()
	return s, acp.ForkSessionResponse{SessionID: s.ID(), Modes: st.Modes, ConfigOptions: st.ConfigOptions}, nil
}

func cannot(c *child, what string) error {
	return acp.NewError(acp.CodeMethodNotFound,
		fmt.Sprintf("Method not found: %s cannot %s sessions", c.agent.Title, what), nil)
}

// learnTyped records the auth methods of an agent served through the
// typed contract.
func (a *Adapter) learnTyped(agent string, methods []acp.AuthMethod) {
	b, _ := json.Marshal(methods)
	var list any
	_ = json.Unmarshal(b, &list)
	a.learnAuth(agent, list)
}

// optionFor is the agent option with current as its value: every agent,
// named with its version.
func (a *Adapter) optionFor(current string) acp.SessionConfigOption {
	a.optionOnce.Do(func() {
		vals := make([]acp.SessionConfigSelectOption, len(a.agents))
		for i, ag := range a.agents {
			name := ag.Title
			if ag.Version != nil {
				if v := ag.Version(); v != "" {
					name += " " + v
				}
			}
			vals[i] = acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(ag.Name), Name: name}
		}
		a.option = acp.SessionConfigOption{ID: OptionID, Name: "Agent",
			Description: acp.Ptr("The agent that runs this session. Choosing another starts a new conversation with it."),
			Select:      &acp.SessionConfigSelect{Options: acp.SessionConfigSelectOptions{Ungrouped: vals}}}
	})
	o := a.option
	sel := *o.Select
	sel.CurrentValue = acp.SessionConfigValueID(current)
	o.Select = &sel
	return o
}

// reopenParams are the params of a session/new that opens the session
// again with another agent: those it was opened with, without the id of a
// load or resume.
func reopenParams(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m == nil {
		return params
	}
	delete(m, "sessionId")
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

func sessionIDOf(params json.RawMessage) acp.SessionID {
	var v struct {
		SessionID acp.SessionID `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &v)
	return v.SessionID
}
