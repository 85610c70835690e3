package auto

import (
	"context"
	"encoding/json"
	"fmt"

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
// it decodes and checks what the bridge would for it alone, and answers
// in the bridge's words.
type typedInner struct {
	s acp.Session
}

func (i typedInner) id() acp.SessionID { return i.s.ID() }

func (i typedInner) forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var res any
	var err error
	switch method {
	case acp.MethodSessionPrompt:
		res, err = i.prompt(ctx, params)
	case acp.MethodSessionSetMode:
		res, err = i.setMode(ctx, params)
	case acp.MethodSessionSetConfigOption:
		var req acp.SetSessionConfigOptionRequest
		if err := acp.DecodeParams(params, &req); err != nil {
			return nil, err
		}
		var opts []acp.SessionConfigOption
		if opts, err = i.setOption(ctx, req); err == nil {
			res = acp.SetSessionConfigOptionResponse{ConfigOptions: opts}
		}
	case acp.MethodSessionSetModel:
		res, err = i.setModel(ctx, params)
	default:
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

func (i typedInner) setMode(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SetSessionModeRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	modes := i.s.State().Modes
	if modes == nil {
		return nil, acp.NewError(acp.CodeMethodNotFound, "Method not found: this session has no modes", nil)
	}
	known := false
	for _, m := range modes.AvailableModes {
		known = known || m.ID == req.ModeID
	}
	if !known {
		return nil, acp.InvalidParams("modeId", fmt.Sprintf("%q is not one of the session's availableModes", req.ModeID))
	}
	if err := i.s.SetMode(ctx, req.ModeID); err != nil {
		return nil, err
	}
	return acp.SetSessionModeResponse{}, nil
}

// setOption checks the option and its value against the session's, as the
// bridge does for an adapter alone, then sets it.
func (i typedInner) setOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	opt, ok := find(i.s.State().ConfigOptions, func(o acp.SessionConfigOption) bool { return o.ID == req.ConfigID })
	if !ok {
		return nil, acp.InvalidParams("configId", fmt.Sprintf("%q is not one of the session's configOptions", req.ConfigID))
	}
	switch {
	case opt.Boolean != nil && req.Value.Boolean == nil:
		return nil, acp.InvalidParams("value", fmt.Sprintf("option %q takes a boolean", opt.ID))
	case opt.Select != nil && (req.Value.ID == nil || !opt.Select.Options.Has(*req.Value.ID)):
		return nil, acp.InvalidParams("value", fmt.Sprintf("not a value of option %q", opt.ID))
	}
	return i.s.SetConfigOption(ctx, req)
}

// setModel serves the legacy session/set_model through the option of
// category "model".
func (i typedInner) setModel(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SetSessionModelRequest
	if err := acp.DecodeParams(params, &req); err != nil {
		return nil, err
	}
	opt, ok := find(i.s.State().ConfigOptions, func(o acp.SessionConfigOption) bool {
		return o.Category != nil && *o.Category == acp.SessionConfigOptionCategoryModel
	})
	if !ok {
		return nil, acp.NewError(acp.CodeMethodNotFound, "Method not found: this session has no model option", nil)
	}
	id := acp.SessionConfigValueID(req.ModelID)
	if _, err := i.setOption(ctx, acp.SetSessionConfigOptionRequest{SessionID: req.SessionID, ConfigID: opt.ID, Value: acp.ConfigOptionValue{ID: &id}}); err != nil {
		return nil, err
	}
	return acp.SetSessionModelResponse{}, nil
}

func (i typedInner) notify(context.Context, string, json.RawMessage) error {
	return nil // the bridge runs every turn of a typed session: nothing else is under way
}

func (i typedInner) options() json.RawMessage {
	b, _ := json.Marshal(nonNil(i.s.State().ConfigOptions))
	return b
}

func (i typedInner) close() error { return i.s.Close() }

func find(opts []acp.SessionConfigOption, match func(acp.SessionConfigOption) bool) (acp.SessionConfigOption, bool) {
	for _, o := range opts {
		if match(o) {
			return o, true
		}
	}
	return acp.SessionConfigOption{}, false
}
