package auto

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// inner is one agent's session behind a session of the Adapter. Its
// methods take params as the editor sent them (naming the editor's
// session id) and answer as its agent does, without the agent option.
type inner interface {
	id() acp.SessionID
	forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	notify(ctx context.Context, method string, params json.RawMessage) error
	// cancelChild passes on the editor's session/cancel of the child id
	// (params name it); it does not block (children.go).
	cancelChild(ctx context.Context, id acp.SessionID, params json.RawMessage) error
	// options are the agent's latest config options, a raw list (nil:
	// none).
	options() json.RawMessage
	close() error
}

// rawInner is a session of an agent that speaks ACP itself.
type rawInner struct {
	rs acp.RawSession
	r  *relay
}

func (i rawInner) id() acp.SessionID { return i.rs.ID() }

func (i rawInner) forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := i.rs.Forward(ctx, method, setSessionID(params, i.rs.ID()))
	if err == nil && method == acp.MethodSessionSetConfigOption {
		if o := optionsOf(res); o != nil {
			i.r.seen(o)
		}
	}
	return res, err
}

func (i rawInner) notify(ctx context.Context, method string, params json.RawMessage) error {
	return i.rs.Notify(ctx, method, setSessionID(params, i.rs.ID()))
}

func (i rawInner) options() json.RawMessage { return i.r.latest() }

func (i rawInner) close() error { return i.rs.Close() }

// typedInner is a session of an agent served through the typed contract:
// it decodes and checks what the bridge would for it alone, with the
// bridge's own checks (acp.ServeSession), and answers in the bridge's
// words.
type typedInner struct {
	s acp.Session
}

func (i typedInner) id() acp.SessionID { return i.s.ID() }

func (i typedInner) forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var res any
	var err error
	if method == acp.MethodSessionPrompt {
		res, err = i.prompt(ctx, params)
	} else if r, served, e := acp.ServeSession(ctx, i.s, method, params); served {
		res, err = r, e
	} else {
		return nil, acp.NewError(acp.CodeMethodNotFound, "Method not found", map[string]any{"method": method})
	}
	if err != nil || res == nil {
		return nil, err
	}
	return json.Marshal(res)
}

func (i typedInner) prompt(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.PromptRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	req.SessionID = i.s.ID()
	stop, err := i.s.Prompt(ctx, req)
	if err != nil || stop == "" {
		return nil, err // the bridge answers a turn without a stop reason
	}
	return acp.PromptResponse{StopReason: stop}, nil
}

func (i typedInner) notify(context.Context, string, json.RawMessage) error {
	return nil // the bridge runs every turn of a typed session: nothing else is under way
}

func (i typedInner) options() json.RawMessage {
	b, _ := json.Marshal(nonNil(i.s.State().ConfigOptions))
	return b
}

func (i typedInner) close() error { return i.s.Close() }
