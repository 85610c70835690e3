package acp

import (
	"context"
	"encoding/json"
	"fmt"
)

// The requests about a typed Session that are answered from the session's
// state alone (session/set_mode, session/set_config_option and the legacy
// session/set_model) are checked and served here, once, for every host of
// a Session: package bridge for an adapter served alone, and an adapter of
// adapters (adapters/auto) for the typed agents it drives from the params
// the bridge forwards it. Each checks the request against what the
// session advertised before the adapter sees it, so that every adapter
// refuses an unknown mode, option or value the same way.

// ServeSession answers the request method, with params as the editor sent
// them, about s: it decodes and validates the params and serves them with
// SetMode, SetConfigOption or SetModel. served is false when method is
// none of those (session/prompt, whose turn its host runs, and steering
// included), and then nothing is done. With s nil it only judges the
// params (a host answering for a session it does not have reports a bad
// request first, as for one it has).
func ServeSession(ctx context.Context, s Session, method string, params json.RawMessage) (res any, served bool, err error) {
	switch method {
	case MethodSessionSetMode:
		var req SetSessionModeRequest
		if err := DecodeParams(params, &req); err != nil || s == nil {
			return nil, true, err
		}
		res, err = SetMode(ctx, s, req)
	case MethodSessionSetConfigOption:
		var req SetSessionConfigOptionRequest
		if err := DecodeParams(params, &req); err != nil || s == nil {
			return nil, true, err
		}
		res, err = SetConfigOption(ctx, s, req)
	case MethodSessionSetModel:
		var req SetSessionModelRequest
		if err := DecodeParams(params, &req); err != nil || s == nil {
			return nil, true, err
		}
		res, err = SetModel(ctx, s, req)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	return res, true, nil
}

// unsupported is the answer to a request the session cannot serve: the
// capability behind it was never advertised.
func unsupported(method, why string) error {
	return NewError(CodeMethodNotFound, "Method not found", map[string]any{"method": method, "reason": why})
}

// SetMode checks the mode against the session's availableModes and sets
// it.
func SetMode(ctx context.Context, s Session, req SetSessionModeRequest) (SetSessionModeResponse, error) {
	modes := s.State().Modes
	if modes == nil {
		return SetSessionModeResponse{}, unsupported(MethodSessionSetMode, "this session has no modes")
	}
	known := false
	for _, m := range modes.AvailableModes {
		known = known || m.ID == req.ModeID
	}
	if !known {
		return SetSessionModeResponse{}, InvalidParams("modeId", fmt.Sprintf("%q is not one of the session's availableModes", req.ModeID))
	}
	if err := s.SetMode(ctx, req.ModeID); err != nil {
		return SetSessionModeResponse{}, err
	}
	return SetSessionModeResponse{}, nil
}

// SetConfigOption checks the option and its value against the session's
// configOptions, sets it, and answers with the full new list (ACP:
// clients replace their whole state with it).
func SetConfigOption(ctx context.Context, s Session, req SetSessionConfigOptionRequest) (SetSessionConfigOptionResponse, error) {
	opts, err := setOption(ctx, s, req)
	if err != nil {
		return SetSessionConfigOptionResponse{}, err
	}
	return SetSessionConfigOptionResponse{ConfigOptions: nonNil(opts)}, nil
}

func setOption(ctx context.Context, s Session, req SetSessionConfigOptionRequest) ([]SessionConfigOption, error) {
	opt, ok := findOption(s.State().ConfigOptions, func(o SessionConfigOption) bool { return o.ID == req.ConfigID })
	if !ok {
		return nil, InvalidParams("configId", fmt.Sprintf("%q is not one of the session's configOptions", req.ConfigID))
	}
	if err := checkValue(opt, req.Value); err != nil {
		return nil, err
	}
	return s.SetConfigOption(ctx, req)
}

// SetModel serves the legacy session/set_model of older clients through
// the session's config option of category "model".
func SetModel(ctx context.Context, s Session, req SetSessionModelRequest) (SetSessionModelResponse, error) {
	opt, ok := findOption(s.State().ConfigOptions, func(o SessionConfigOption) bool {
		return o.Category != nil && *o.Category == SessionConfigOptionCategoryModel
	})
	if !ok {
		return SetSessionModelResponse{}, unsupported(MethodSessionSetModel, "this session has no model option")
	}
	id := SessionConfigValueID(req.ModelID)
	_, err := setOption(ctx, s, SetSessionConfigOptionRequest{
		SessionID: req.SessionID, ConfigID: opt.ID, Value: ConfigOptionValue{ID: &id},
	})
	if err != nil {
		if ae, ok := err.(*Error); ok && ae.Code == ErrInvalidParams.Code {
			return SetSessionModelResponse{}, InvalidParams("modelId", fmt.Sprintf("%q is not one of the session's models", req.ModelID))
		}
		return SetSessionModelResponse{}, err
	}
	return SetSessionModelResponse{}, nil
}

func findOption(opts []SessionConfigOption, match func(SessionConfigOption) bool) (SessionConfigOption, bool) {
	for _, o := range opts {
		if match(o) {
			return o, true
		}
	}
	return SessionConfigOption{}, false
}

// checkValue reports a value of the wrong kind, or a select value that is
// not one of the option's values.
func checkValue(opt SessionConfigOption, v ConfigOptionValue) error {
	switch {
	case opt.Boolean != nil:
		if v.Boolean == nil {
			return InvalidParams("value", fmt.Sprintf("option %q takes a boolean", opt.ID))
		}
	case opt.Select != nil:
		if v.ID == nil {
			return InvalidParams("value", fmt.Sprintf("option %q takes one of its value ids", opt.ID))
		}
		if !opt.Select.Options.Has(*v.ID) {
			return InvalidParams("value", fmt.Sprintf("%q is not a value of option %q", *v.ID, opt.ID))
		}
	}
	return nil
}
