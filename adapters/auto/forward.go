package auto

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Forward serves the requests that name no open session: session/list
// merges the agents' lists, session/delete goes to the agent that holds
// the session, authenticate to the agent that offered the method, logout
// to every agent that has a login; other methods (extensions) go to the
// default agent when it speaks ACP itself.
//
// An agent that speaks ACP itself is asked only when it is the default
// one: asking another would start its process for nothing the user chose.
func (a *Adapter) Forward(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	switch method {
	case acp.MethodSessionList:
		return a.list(ctx, params, rc)
	case acp.MethodSessionDelete:
		return a.delete(ctx, params, rc)
	case acp.MethodAuthenticate:
		return a.authenticate(ctx, params, rc)
	case acp.MethodLogout:
		return a.logout(ctx, params, rc)
	}
	if f := a.defaultForwarder(); f != nil {
		return f.Forward(ctx, method, params, rc)
	}
	return nil, acp.NewError(acp.CodeMethodNotFound, "Method not found", map[string]any{"method": method})
}

// Notify passes a notification that names no open session to the default
// agent, when it speaks ACP itself.
func (a *Adapter) Notify(ctx context.Context, method string, params json.RawMessage, rc acp.RawClient) error {
	if f := a.defaultForwarder(); f != nil {
		return f.Notify(ctx, method, params, rc)
	}
	return nil
}

func (a *Adapter) defaultForwarder() acp.Forwarder {
	if c := a.startedChild(a.defaultName()); c != nil {
		f, _ := c.a.(acp.Forwarder)
		return f
	}
	return nil
}

// listCursor is where a merged listing goes on: the agent, and its own
// cursor.
type listCursor struct {
	Agent  string `json:"a"`
	Cursor string `json:"c,omitempty"`
}

// list merges the agents' session lists, in the order of the agents: one
// page holds each agent's first page, up to the first agent that has more,
// and its nextCursor goes on from there.
func (a *Adapter) list(ctx context.Context, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	var req acp.ListSessionsRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	start, cursor := 0, (*string)(nil)
	if req.Cursor != nil {
		var lc listCursor
		b, err := base64.RawURLEncoding.DecodeString(*req.Cursor)
		if err != nil || json.Unmarshal(b, &lc) != nil || index(a.agents, lc.Agent) < 0 {
			return nil, acp.InvalidParams("cursor", "not a nextCursor of this agent")
		}
		start = index(a.agents, lc.Agent)
		if lc.Cursor != "" {
			cursor = &lc.Cursor
		}
	}
	all := []json.RawMessage{}
	var firstErr error
	asked := 0
	for i := start; i < len(a.agents); i++ {
		name := a.agents[i].Name
		q := req
		q.Cursor = nil
		if i == start {
			q.Cursor = cursor
		}
		page, next, ok, err := a.listOne(ctx, name, q, rc)
		if !ok {
			continue
		}
		asked++
		if err != nil {
			a.opts.Logger.Debug().Err(err).Str("agent", name).Msg("listing sessions")
			firstErr = firstOf(firstErr, err)
			continue
		}
		for _, s := range page {
			if id := sessionIDOf(s); id != "" {
				a.own(id, name)
			}
		}
		all = append(all, page...)
		if next != nil {
			b, _ := json.Marshal(listCursor{Agent: name, Cursor: *next})
			return json.Marshal(map[string]any{"sessions": all, "nextCursor": base64.RawURLEncoding.EncodeToString(b)})
		}
	}
	if asked > 0 && len(all) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return json.Marshal(map[string]any{"sessions": all})
}

func firstOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// listOne lists one agent's sessions; ok is false for an agent that does
// not list (or is not asked).
func (a *Adapter) listOne(ctx context.Context, name string, req acp.ListSessionsRequest, rc acp.RawClient) (page []json.RawMessage, next *string, ok bool, err error) {
	c := a.startedChild(name)
	if c == nil {
		return nil, nil, false, nil
	}
	var raw json.RawMessage
	switch ad := c.a.(type) {
	case acp.Lister:
		res, err := ad.ListSessions(ctx, req)
		if err != nil {
			return nil, nil, true, err
		}
		if raw, err = json.Marshal(res); err != nil {
			return nil, nil, true, err
		}
	case acp.Forwarder:
		if name != a.defaultName() {
			return nil, nil, false, nil
		}
		params, _ := json.Marshal(req)
		if raw, err = ad.Forward(ctx, acp.MethodSessionList, params, rc); err != nil {
			return nil, nil, true, err
		}
	default:
		return nil, nil, false, nil
	}
	var res struct {
		Sessions   []json.RawMessage `json:"sessions"`
		NextCursor *string           `json:"nextCursor"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, true, err
	}
	return res.Sessions, res.NextCursor, true, nil
}

// delete deletes a stored session through the agent that holds it.
func (a *Adapter) delete(ctx context.Context, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	var req acp.DeleteSessionRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	c, err := a.child(a.owner(req.SessionID))
	if err != nil {
		return nil, err
	}
	switch ad := c.a.(type) {
	case acp.Deleter:
		if err := ad.DeleteSession(ctx, req); err != nil {
			return nil, err
		}
		return json.Marshal(acp.DeleteSessionResponse{})
	case acp.Forwarder:
		return ad.Forward(ctx, acp.MethodSessionDelete, params, rc)
	}
	return nil, cannot(c, "delete")
}

// authenticate logs in through the agent that offered the method.
func (a *Adapter) authenticate(ctx context.Context, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	var req acp.AuthenticateRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	a.mu.Lock()
	name, ok := a.authBy[req.MethodID]
	a.mu.Unlock()
	if !ok {
		return nil, acp.InvalidParams("methodId", "not one of the authMethods an agent offered")
	}
	c, err := a.child(name)
	if err != nil {
		return nil, err
	}
	switch ad := c.a.(type) {
	case acp.Authenticator:
		if err := ad.Authenticate(ctx, req); err != nil {
			return nil, err
		}
		return json.Marshal(acp.AuthenticateResponse{})
	case acp.Forwarder:
		return ad.Forward(ctx, acp.MethodAuthenticate, params, rc)
	}
	return nil, acp.InvalidParams("methodId", c.agent.Title+" needs no authentication")
}

// logout logs out of every agent that has a login: those served through
// the typed contract that authenticate, and the default agent when it
// speaks ACP itself.
func (a *Adapter) logout(ctx context.Context, params json.RawMessage, rc acp.RawClient) (json.RawMessage, error) {
	var errs []error
	some := false
	for _, ag := range a.agents {
		c := a.startedChild(ag.Name)
		if c == nil {
			continue
		}
		switch ad := c.a.(type) {
		case acp.Authenticator:
			some = true
			errs = append(errs, ad.Logout(ctx))
		case acp.Forwarder:
			if ag.Name == a.defaultName() {
				some = true
				_, err := ad.Forward(ctx, acp.MethodLogout, params, rc)
				errs = append(errs, err)
			}
		}
	}
	if !some {
		return nil, acp.NewError(acp.CodeMethodNotFound, "Method not found: no agent here has a login", nil)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return json.RawMessage(`{}`), nil
}
