package auto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Initialize answers for the default agent (see the package doc): its own
// answer when it speaks ACP itself, else one derived from its Info and
// the optional interfaces it implements, as the bridge derives it for an
// adapter served alone. Session capabilities are widened to what any agent
// known without starting it offers, and agentInfo names the bridge. The
// first answer is kept: a repeated initialize gets it again.
func (a *Adapter) Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	a.initMu.Lock()
	defer a.initMu.Unlock()
	if a.initRes != nil {
		return a.initRes, nil
	}
	res, err := a.initialize(ctx, params)
	if err != nil {
		return nil, err
	}
	a.initRes = res
	return res, nil
}

func (a *Adapter) initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	m := map[string]any{
		"protocolVersion":   acp.LatestProtocolVersion,
		"agentCapabilities": map[string]any{},
		"authMethods":       []any{},
	}
	if name := a.defaultName(); name != "" {
		c, err := a.child(name)
		if err != nil {
			return nil, err
		}
		if m, err = answerOf(ctx, c, params); err != nil {
			return nil, err
		}
		a.learnAuth(name, m["authMethods"])
	}
	caps, _ := m["agentCapabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		m["agentCapabilities"] = caps
	}
	a.widen(caps)
	m["agentInfo"] = map[string]any{"name": a.opts.Name, "title": a.title(), "version": a.opts.Version}
	return json.Marshal(m)
}

// answerOf is the initialize answer the agent would give alone.
func answerOf(ctx context.Context, c *child, params json.RawMessage) (map[string]any, error) {
	var raw json.RawMessage
	if i, ok := c.a.(acp.Initializer); ok {
		var err error
		if raw, err = i.Initialize(ctx, params); err != nil {
			return nil, err
		}
	} else {
		info := c.a.Info()
		var err error
		raw, err = json.Marshal(acp.InitializeResponse{
			ProtocolVersion:   acp.LatestProtocolVersion,
			AgentCapabilities: acp.Capabilities(c.a, info),
			AuthMethods:       nonNil(info.AuthMethods),
		})
		if err != nil {
			return nil, err
		}
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %s's initialize answer is not an object", acp.ErrInternal, c.agent.Name)
	}
	return m, nil
}

// widen adds to caps the session capabilities that some agent served
// through the typed contract offers (load, list, resume, delete, fork) (their adapters are built for it, which
// starts nothing), and session/close, which every session has.
func (a *Adapter) widen(caps map[string]any) {
	sc, _ := caps["sessionCapabilities"].(map[string]any)
	if sc == nil {
		sc = map[string]any{}
		caps["sessionCapabilities"] = sc
	}
	sc["close"] = map[string]any{}
	for _, ag := range a.agents {
		c, err := a.child(ag.Name)
		if err != nil {
			continue
		}
		if _, ok := c.a.(acp.Forwarder); ok {
			continue // known only once started, and only the default is
		}
		if _, ok := c.a.(acp.Loader); ok {
			caps["loadSession"] = true
		}
		for key, ok := range map[string]bool{"list": is[acp.Lister](c.a), "resume": is[acp.Resumer](c.a), "delete": is[acp.Deleter](c.a),
			"fork": is[acp.Forker](c.a)} {
			if ok && sc[key] == nil {
				sc[key] = map[string]any{}
			}
		}
	}
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

// learnAuth records which agent offers each of methods (an initialize
// answer's authMethods), so that authenticate goes to it.
func (a *Adapter) learnAuth(name string, methods any) {
	list, _ := methods.([]any)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range list {
		if o, ok := m.(map[string]any); ok {
			if id, ok := o["id"].(string); ok {
				if _, taken := a.authBy[acp.AuthMethodID(id)]; !taken {
					a.authBy[acp.AuthMethodID(id)] = name
				}
			}
		}
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
