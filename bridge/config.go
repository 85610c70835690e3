package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// setMode checks the mode against the session's advertised modes before the
// adapter sees it, so every adapter rejects an unknown mode the same way.
func (c *connection) setMode(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SetSessionModeRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	modes := s.impl.State().Modes
	if modes == nil {
		return nil, unsupported(acp.MethodSessionSetMode, "this session has no modes")
	}
	if !hasMode(modes, req.ModeID) {
		return nil, acp.InvalidParams("modeId", fmt.Sprintf("%q is not one of the session's availableModes", req.ModeID))
	}
	if err := s.impl.SetMode(ctx, req.ModeID); err != nil {
		return nil, err
	}
	return acp.SetSessionModeResponse{}, nil
}

func hasMode(m *acp.SessionModeState, id acp.SessionModeID) bool {
	for _, am := range m.AvailableModes {
		if am.ID == id {
			return true
		}
	}
	return false
}

// setConfigOption validates the option and value against the session's
// advertised options and answers with the full new list (ACP: clients
// replace their whole state with it).
func (c *connection) setConfigOption(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SetSessionConfigOptionRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	opts, err := s.setConfig(ctx, req)
	if err != nil {
		return nil, err
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: nonNil(opts)}, nil
}

func (s *session) setConfig(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	opt, ok := findOption(s.impl.State().ConfigOptions, func(o acp.SessionConfigOption) bool { return o.ID == req.ConfigID })
	if !ok {
		return nil, acp.InvalidParams("configId", fmt.Sprintf("%q is not one of the session's configOptions", req.ConfigID))
	}
	if err := checkValue(opt, req.Value); err != nil {
		return nil, err
	}
	return s.impl.SetConfigOption(ctx, req)
}

// setModel serves the legacy session/set_model of older clients through the
// session's config option of category "model".
func (c *connection) setModel(ctx context.Context, params json.RawMessage) (any, error) {
	var req acp.SetSessionModelRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	s, err := c.lookup(req.SessionID)
	if err != nil {
		return nil, err
	}
	opt, ok := findOption(s.impl.State().ConfigOptions, func(o acp.SessionConfigOption) bool {
		return o.Category != nil && *o.Category == acp.SessionConfigOptionCategoryModel
	})
	if !ok {
		return nil, unsupported(acp.MethodSessionSetModel, "this session has no model option")
	}
	id := acp.SessionConfigValueID(req.ModelID)
	_, err = s.setConfig(ctx, acp.SetSessionConfigOptionRequest{
		SessionID: req.SessionID, ConfigID: opt.ID, Value: acp.ConfigOptionValue{ID: &id},
	})
	if err != nil {
		if ae, ok := err.(*acp.Error); ok && ae.Code == acp.ErrInvalidParams.Code {
			return nil, acp.InvalidParams("modelId", fmt.Sprintf("%q is not one of the session's models", req.ModelID))
		}
		return nil, err
	}
	return acp.SetSessionModelResponse{}, nil
}

func findOption(opts []acp.SessionConfigOption, match func(acp.SessionConfigOption) bool) (acp.SessionConfigOption, bool) {
	for _, o := range opts {
		if match(o) {
			return o, true
		}
	}
	return acp.SessionConfigOption{}, false
}

// checkValue reports a value of the wrong kind, or a select value that is
// not one of the option's values.
func checkValue(opt acp.SessionConfigOption, v acp.ConfigOptionValue) error {
	switch {
	case opt.Boolean != nil:
		if v.Boolean == nil {
			return acp.InvalidParams("value", fmt.Sprintf("option %q takes a boolean", opt.ID))
		}
	case opt.Select != nil:
		if v.ID == nil {
			return acp.InvalidParams("value", fmt.Sprintf("option %q takes one of its value ids", opt.ID))
		}
		if !opt.Select.Options.Has(*v.ID) {
			return acp.InvalidParams("value", fmt.Sprintf("%q is not a value of option %q", *v.ID, opt.ID))
		}
	}
	return nil
}
