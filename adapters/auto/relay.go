package auto

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// relay is the bridge's client of a session as one agent's session behind
// it sees it. The editor knows the session by the id its first agent gave
// it, and sees the agent option in every list of config options; an agent
// opened later gave its session an id of its own, so what it sends raw is
// re-addressed (its children's frames keep their ids, children.go). Typed
// updates need no re-addressing: the bridge stamps them with the session's
// id. Once its agent's session has been replaced
// (retired), nothing it sends reaches the editor.
type relay struct {
	acp.RawClient
	agent  string                                       // the agent behind it
	option func(current string) acp.SessionConfigOption // the agent option, with a current value
	own    func(child acp.SessionID)                    // records a child as the agent's (children.go)

	mu    sync.Mutex
	outer acp.SessionID          // guarded by mu; the editor's id, "" until known
	opts  json.RawMessage        // guarded by mu; the agent's latest configOptions, raw (a raw agent's)
	kids  map[acp.SessionID]bool // guarded by mu; the child sessions of the agent's session

	retired atomic.Bool
}

var (
	_ acp.RawClient      = (*relay)(nil)
	_ acp.RawCallStarter = (*relay)(nil)
)

func (r *relay) setOuter(id acp.SessionID) {
	r.mu.Lock()
	r.outer = id
	r.mu.Unlock()
}

func (r *relay) outerID() acp.SessionID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outer
}

// seen records the agent's latest config options (a raw list, nil when
// the agent offers none).
func (r *relay) seen(opts json.RawMessage) {
	r.mu.Lock()
	r.opts = opts
	r.mu.Unlock()
}

func (r *relay) latest() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opts
}

var errRetired = errors.New("multi: the session has moved to another agent")

// SessionUpdate adds the agent option to a typed agent's
// config_option_update.
func (r *relay) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	if r.retired.Load() {
		return nil
	}
	if u := n.Update.ConfigOptionUpdate; u != nil {
		c := *u
		c.ConfigOptions = withAgent(r.option(r.agent), u.ConfigOptions)
		n.Update.ConfigOptionUpdate = &c
	}
	return r.RawClient.SessionUpdate(ctx, n)
}

// NotifyRaw re-addresses a raw agent's notification, and adds the agent
// option to its config_option_update.
func (r *relay) NotifyRaw(ctx context.Context, method string, params json.RawMessage) error {
	if r.retired.Load() {
		return nil
	}
	r.noteAnnounced(method, params)
	params = r.readdress(params)
	if method == acp.MethodSessionUpdate && bytes.Contains(params, []byte("config_option_update")) {
		if opts, ok := configUpdate(params); ok {
			r.seen(opts)
			params = withAgentRaw(params, []string{"update"}, r.option(r.agent))
		}
	}
	return r.RawClient.NotifyRaw(ctx, method, params)
}

// CallRaw re-addresses a raw agent's request.
func (r *relay) CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return r.StartCallRaw(ctx, method, params)()
}

// StartCallRaw is CallRaw in two steps when the bridge's client can.
func (r *relay) StartCallRaw(ctx context.Context, method string, params json.RawMessage) func() (json.RawMessage, error) {
	if r.retired.Load() {
		return func() (json.RawMessage, error) { return nil, errRetired }
	}
	params = r.readdress(params)
	if s, ok := r.RawClient.(acp.RawCallStarter); ok {
		return s.StartCallRaw(ctx, method, params)
	}
	return func() (json.RawMessage, error) { return r.RawClient.CallRaw(ctx, method, params) }
}

// AuthenticateParams are the bridge client's (the editor's last accepted
// authenticate), for a raw agent that logs each process in with them.
func (r *relay) AuthenticateParams() json.RawMessage {
	if a, ok := r.RawClient.(interface{ AuthenticateParams() json.RawMessage }); ok {
		return a.AuthenticateParams()
	}
	return nil
}

// readdress puts the editor's id on a frame of the agent's session; a
// child's frame keeps the child's id.
func (r *relay) readdress(params json.RawMessage) json.RawMessage {
	id := r.outerID()
	if id == "" || bytes.Contains(params, []byte(`"sessionId":"`+string(id)+`"`)) {
		return params // the agent's first session, whose id the editor knows: most frames
	}
	if r.isKid(params) {
		return params
	}
	return setSessionID(params, id)
}
