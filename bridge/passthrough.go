package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// passthrough answers a request for an adapter whose agent speaks ACP
// itself (see Passthrough): the bridge checks and records what it needs and
// forwards the params unchanged.
func (c *connection) passthrough(ctx context.Context, p Passthrough, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case acp.MethodInitialize:
		if _, err := c.initialize(ctx, req.Params); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.initParams == nil {
			c.initParams = append(json.RawMessage(nil), req.Params...)
		}
		c.mu.Unlock()
		return rawResult(p.Initialize(ctx, req.Params))
	case acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionResume:
		return c.openRaw(ctx, p, req.Method, req.Params)
	case acp.MethodSessionClose:
		return c.closeSession(ctx, req.Params)
	case acp.MethodSessionPrompt:
		return c.promptRaw(ctx, req.Params)
	}
	s, rs := c.namedSession(req.Params)
	switch {
	case rs != nil:
		return rawResult(rs.Forward(ctx, req.Method, req.Params))
	case s == nil && isSessionMethod(req.Method):
		// A request about a session that is not open here: the bridge's
		// answer, as for every adapter.
		_, err := c.lookup(sessionIDOf(req.Params))
		return nil, err
	}
	res, err := p.Forward(ctx, req.Method, req.Params, c.newSessionClient(true))
	if err == nil && (req.Method == acp.MethodAuthenticate || req.Method == acp.MethodLogout) {
		// Recorded for this connection alone: over HTTP one adapter serves
		// every client, and a client's login must not log in the agents of
		// another's sessions.
		c.mu.Lock()
		c.authParams = nil
		if req.Method == acp.MethodAuthenticate {
			c.authParams = append(json.RawMessage(nil), req.Params...)
		}
		c.mu.Unlock()
	}
	return rawResult(res, err)
}

// rawResult keeps a nil result from becoming a JSON null answer.
func rawResult(raw json.RawMessage, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return struct{}{}, nil
	}
	return raw, nil
}

// isSessionMethod reports the methods that only make sense for an open
// session.
func isSessionMethod(m string) bool {
	switch m {
	case acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption, acp.MethodSessionSetModel:
		return true
	}
	return false
}

// notifyRaw forwards a notification other than session/cancel: to the
// session its params name, else to the adapter.
func (c *connection) notifyRaw(ctx context.Context, p Passthrough, req *jsonrpc.Request) {
	var err error
	if _, rs := c.namedSession(req.Params); rs != nil {
		err = rs.Notify(ctx, req.Method, req.Params)
	} else {
		err = p.Notify(ctx, req.Method, req.Params, c.newSessionClient(true))
	}
	if err != nil {
		c.log.Debug().Err(err).Str("method", req.Method).Msg("forwarding notification")
	}
}

func sessionIDOf(params json.RawMessage) acp.SessionID {
	var v struct {
		SessionID acp.SessionID `json:"sessionId"`
	}
	if json.Unmarshal(params, &v) != nil {
		return ""
	}
	return v.SessionID
}

// namedSession finds the open session the params name, if any, and its raw
// side when it has one.
func (c *connection) namedSession(params json.RawMessage) (*session, acp.RawSession) {
	id := sessionIDOf(params)
	if id == "" {
		return nil, nil
	}
	s := c.session(id)
	if s == nil {
		return nil, nil
	}
	rs, _ := s.impl.(acp.RawSession)
	return s, rs
}

// openRaw opens a session through the agent. The params are checked as for
// every adapter; a load or resume of a session open here replaces it, as
// reopen does.
func (c *connection) openRaw(ctx context.Context, p Passthrough, method string, params json.RawMessage) (any, error) {
	var id acp.SessionID
	switch method {
	case acp.MethodSessionNew:
		var r acp.NewSessionRequest
		if err := decode(params, &r); err != nil {
			return nil, err
		}
	case acp.MethodSessionLoad:
		var r acp.LoadSessionRequest
		if err := decode(params, &r); err != nil {
			return nil, err
		}
		id = r.SessionID
	default:
		var r acp.ResumeSessionRequest
		if err := decode(params, &r); err != nil {
			return nil, err
		}
		id = r.SessionID
	}
	reopen := id != ""
	if old := c.session(id); reopen && old != nil {
		if old.running() {
			return nil, acp.NewError(int(jsonrpc.ErrInvalidRequest.Code),
				"Invalid request: session "+string(id)+" has a turn running; send session/cancel first", nil)
		}
		c.forget(old)
		old.close()
	}
	cl := c.newSessionClient(reopen)
	if reopen {
		cl.bind(id)
	}
	rs, raw, err := p.Open(ctx, method, params, cl)
	if err != nil {
		return nil, err
	}
	if !reopen {
		cl.bind(rs.ID())
	}
	s, err := c.register(rs, cl)
	if err != nil {
		return nil, err
	}
	res, _ := rawResult(raw, nil)
	return c.opened(s, res), nil
}

// promptRaw runs one turn through the agent, with the bridge's turn rules:
// one at a time, cancel preempted, and "cancelled" whatever the agent's way
// of unwinding was.
func (c *connection) promptRaw(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.PromptRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	rs, ok := s.impl.(acp.RawSession)
	if !ok {
		return c.prompt(ctx, params)
	}
	tctx, t, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer s.end(t)
	raw, err := rs.Forward(tctx, acp.MethodSessionPrompt, params)
	if errors.Is(context.Cause(tctx), errCancelledByClient) && (err != nil || len(raw) == 0) {
		if err != nil {
			s.client.log.Debug().Err(err).Msg("turn unwound with an error after session/cancel")
		}
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if err == nil && len(raw) == 0 {
		return nil, acp.NewError(int(jsonrpc.ErrInternal.Code), "Internal error: the agent ended the turn without an answer", nil)
	}
	return rawResult(raw, err)
}
