package bridge

import (
	"context"
	"encoding/json"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// The methods below serve an adapter whose agent speaks ACP itself (see
// acp.Forwarder) where the typed handlers cannot: the bridge checks and
// records what it needs and forwards the params unchanged. The handlers of
// server.go, session.go, initialize.go and turn.go choose them per method,
// for every adapter alike.

// forward answers a request the bridge does not model, or one whose typed
// interface the adapter does not implement: to the open session its params
// name, else to the adapter. An authenticate or logout the agent accepted
// is recorded for this connection.
func (c *connection) forward(ctx context.Context, f acp.Forwarder, method string, params json.RawMessage) (any, error) {
	adapter := func() (any, error) { return c.forwardHere(ctx, f, method, params) }
	if s := c.namedSession(params); s != nil {
		return s.agent.call(ctx, method, params, adapter)
	}
	return adapter()
}

// forwardHere is forward to the adapter, for a request that names no
// session of its agent.
func (c *connection) forwardHere(ctx context.Context, f acp.Forwarder, method string, params json.RawMessage) (any, error) {
	res, err := f.Forward(ctx, method, params, c.newSessionClient(true))
	if err == nil && (method == acp.MethodAuthenticate || method == acp.MethodLogout) {
		// Recorded for this connection alone: over HTTP one adapter serves
		// every client, and a client's login must not log in the agents of
		// another's sessions.
		c.mu.Lock()
		c.authParams = nil
		if method == acp.MethodAuthenticate {
			c.authParams = append(json.RawMessage(nil), params...)
		}
		c.mu.Unlock()
	}
	return rawResult(res, err)
}

// forwardable is the handler of a request about one open session: the
// session's conduit gets it, and a RawSession passes it on with its params
// unchanged, a typed session serves it through typed. The bridge does not
// judge params it forwards (the agent may take fields or values this
// package does not model), so for a Forwarder a session not open here is
// answered as such, whatever the params.
func forwardable(method string, typed method) method {
	return func(c *connection, ctx context.Context, params json.RawMessage) (any, error) {
		served := func() (any, error) { return typed(c, ctx, params) }
		if s := c.namedSession(params); s != nil {
			return s.agent.call(ctx, method, params, served)
		}
		if _, fw := c.srv.adapter.(acp.Forwarder); fw {
			_, err := c.lookup(sessionIDOf(params))
			return nil, err
		}
		return served()
	}
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

// notifyRaw forwards a notification other than session/cancel: to the
// session its params name, else to the adapter.
func (c *connection) notifyRaw(ctx context.Context, f acp.Forwarder, req *jsonrpc.Request) {
	adapter := func() error { return f.Notify(ctx, req.Method, req.Params, c.newSessionClient(true)) }
	var err error
	if s := c.namedSession(req.Params); s != nil {
		err = s.agent.notify(ctx, req.Method, req.Params, adapter)
	} else {
		err = adapter()
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

// namedSession finds the open session the params name, if any.
func (c *connection) namedSession(params json.RawMessage) *session {
	id := sessionIDOf(params)
	if id == "" {
		return nil
	}
	return c.session(id)
}

// openRaw opens a session through a Forwarder's Open, once the caller has
// checked the params (id is the session a load or resume names). A load or
// resume of a session open here replaces it, as reopen does.
func (c *connection) openRaw(ctx context.Context, f acp.Forwarder, method string, id acp.SessionID, params json.RawMessage) (any, error) {
	if err := c.requireAuth(); err != nil {
		return nil, err
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
	rs, raw, err := f.Open(ctx, method, params, cl)
	if err != nil {
		return nil, err
	}
	if !reopen {
		cl.bind(rs.ID())
	}
	s, err := c.register(rawConduit{rs}, cl)
	if err != nil {
		return nil, err
	}
	res, _ := rawResult(raw, nil)
	return c.opened(s, res), nil
}

// cancelledAnswer is the answer to a prompt cancelled while it ran: ACP
// says it ends "cancelled", and an agent's other stop reason (opencode
// answers a cancel it got early end_turn) is replaced; the rest of the
// agent's answer (usage, _meta) is kept.
func cancelledAnswer(raw json.RawMessage, err error, log *zerolog.Logger) any {
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(raw, &m) != nil || m == nil {
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}
	}
	if r := string(m["stopReason"]); r != `"cancelled"` {
		log.Debug().Str("stop_reason", string(m["stopReason"])).Msg("the agent ended a cancelled turn otherwise; answered cancelled")
	}
	m["stopReason"] = json.RawMessage(`"cancelled"`)
	return m
}
