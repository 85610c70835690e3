package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// protocolVersion is the ACP major version the bridge speaks.
const protocolVersion = 1

// initialize answers the version handshake and advertises exactly what the
// adapter implements (ACP: anything omitted is unsupported): the answer
// derived from what the adapter declares (acp.Capabilities), or an
// Initializer's own. A
// repeated initialize is answered again, with the capabilities of the first.
func (c *connection) initialize(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.InitializeRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if !c.initialized {
		c.initialized = true
		c.clientCaps = req.ClientCapabilities
		c.initParams = append(json.RawMessage(nil), params...)
	}
	c.mu.Unlock()
	if i, ok := c.srv.adapter.(acp.Initializer); ok {
		raw, err := i.Initialize(ctx, params)
		if err == nil && terminalAuth(req.ClientCapabilities) {
			raw, err = appendAuthMethods(raw, c.srv.terminalAuth())
		}
		return rawResult(raw, err)
	}
	info := c.srv.adapterInfo()
	return acp.InitializeResponse{
		// An agent answers with the client's version when it supports it,
		// else with its own latest; v1 is the only one there is.
		ProtocolVersion: protocolVersion,
		AgentInfo: &acp.Implementation{
			Name:    c.srv.opts.Name,
			Title:   acp.NonEmpty(info.Title),
			Version: c.srv.opts.Version,
		},
		AgentCapabilities: acp.Capabilities(c.srv.adapter, info),
		AuthMethods:       nonNil(c.authMethods()),
		Meta:              acp.SteeringMeta(info),
	}, nil
}

// authMethods are the adapter's auth methods, then, for a client that
// enabled terminal auth, the bridge's terminal logins.
func (c *connection) authMethods() []acp.AuthMethod {
	methods := c.srv.adapterInfo().AuthMethods
	c.mu.Lock()
	caps := c.clientCaps
	c.mu.Unlock()
	if terminalAuth(caps) {
		methods = append(append([]acp.AuthMethod(nil), methods...), c.srv.terminalAuth()...)
	}
	return methods
}

// terminalAuth reports whether the client can run terminal auth methods:
// clientCapabilities.auth.terminal, or the "terminal-auth" key of its
// _meta, which clients used before the capability was in the schema and
// the ACP registry's checker still sends.
func terminalAuth(caps acp.ClientCapabilities) bool {
	if caps.Auth.Terminal {
		return true
	}
	v, ok := caps.Meta["terminal-auth"]
	return ok && v != false && v != nil
}

func (s *Server) terminalAuth() []acp.AuthMethod {
	out := make([]acp.AuthMethod, len(s.opts.TerminalAuth))
	for i := range s.opts.TerminalAuth {
		out[i] = acp.AuthMethod{Terminal: &s.opts.TerminalAuth[i]}
	}
	return out
}

// appendAuthMethods adds methods to the authMethods of an initialize
// answer the adapter wrote, keeping everything else of it as it was.
func appendAuthMethods(raw json.RawMessage, methods []acp.AuthMethod) (json.RawMessage, error) {
	if len(methods) == 0 {
		return raw, nil
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("%w: the agent's initialize answer is not an object: %v", acp.ErrInternal, err)
	}
	var have []json.RawMessage
	if a := res["authMethods"]; len(a) > 0 && string(a) != "null" {
		if err := json.Unmarshal(a, &have); err != nil {
			return nil, fmt.Errorf("%w: the agent's authMethods are not a list: %v", acp.ErrInternal, err)
		}
	}
	for _, m := range methods {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		have = append(have, b)
	}
	all, err := json.Marshal(have)
	if err != nil {
		return nil, err
	}
	res["authMethods"] = all
	return json.Marshal(res)
}

func (c *connection) authenticate(ctx context.Context, params json.RawMessage) (any, error) {
	a, ok := c.srv.adapter.(acp.Authenticator)
	if f, fw := c.srv.adapter.(acp.Forwarder); !ok && fw {
		return c.forward(ctx, f, acp.MethodAuthenticate, params)
	}
	var req acp.AuthenticateRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if !c.srv.offersAuth(req.MethodID) {
		return nil, acp.InvalidParams("methodId", "not one of the authMethods this agent advertised")
	}
	if !ok {
		return nil, acp.InvalidParams("methodId", "this agent needs no authentication")
	}
	if err := a.Authenticate(ctx, req); err != nil {
		return nil, err
	}
	return acp.AuthenticateResponse{}, nil
}

func (s *Server) offersAuth(id acp.AuthMethodID) bool {
	for _, m := range s.adapterInfo().AuthMethods {
		if authMethodID(m) == id {
			return true
		}
	}
	return false
}

func (c *connection) logout(ctx context.Context, params json.RawMessage) (any, error) {
	a, ok := c.srv.adapter.(acp.Authenticator)
	if f, fw := c.srv.adapter.(acp.Forwarder); !ok && fw {
		return c.forward(ctx, f, acp.MethodLogout, params)
	}
	if !ok {
		return nil, unsupported(acp.MethodLogout, "this agent has no login")
	}
	var req acp.LogoutRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.Logout(ctx); err != nil {
		return nil, err
	}
	return acp.LogoutResponse{}, nil
}

// requireAuth answers auth-required (-32000) while the adapter has no
// credentials, so the client knows to call authenticate and retry.
func (c *connection) requireAuth() error {
	if a, ok := c.srv.adapter.(acp.Authenticator); ok && !a.Authenticated() {
		return acp.NewError(int(acp.ErrAuthRequired.Code), "Authentication required",
			map[string]any{"authMethods": c.authMethods()})
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func authMethodID(m acp.AuthMethod) acp.AuthMethodID {
	switch {
	case m.Agent != nil:
		return m.Agent.ID
	case m.Terminal != nil:
		return m.Terminal.ID
	}
	return ""
}
