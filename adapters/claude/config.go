package claude

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// SetMode switches the CLI's permission mode. When no process is running the
// mode is kept and passed to the next one.
func (s *Session) SetMode(ctx context.Context, m acp.SessionModeID) error {
	if !s.a.dialect.validMode(string(m)) {
		return fmt.Errorf("%w: unknown mode %q", acp.ErrInvalidParams, m)
	}
	if err := s.control(ctx, "set_permission_mode", map[string]any{"mode": string(m)}); err != nil {
		return err
	}
	s.changeMode(string(m))
	return nil
}

// SetConfigOption sets the mode or the model and returns the full list.
func (s *Session) SetConfigOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	if req.Value.ID == nil {
		return nil, fmt.Errorf("%w: option %q takes a value id", acp.ErrInvalidParams, req.ConfigID)
	}
	v := string(*req.Value.ID)
	switch req.ConfigID {
	case configMode:
		if err := s.SetMode(ctx, acp.SessionModeID(v)); err != nil {
			return nil, err
		}
	case configModel:
		if err := s.setModel(ctx, v); err != nil {
			return nil, err
		}
	case configEffort:
		if err := s.setEffort(ctx, v); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: unknown config option %q", acp.ErrInvalidParams, req.ConfigID)
	}
	return s.State().ConfigOptions, nil
}

func (s *Session) setModel(ctx context.Context, v string) error {
	s.mu.Lock()
	known := len(s.models) == 0 || slices.ContainsFunc(s.models, func(m model) bool { return m.value == v })
	s.mu.Unlock()
	if !known {
		return fmt.Errorf("%w: unknown model %q", acp.ErrInvalidParams, v)
	}
	if err := s.control(ctx, "set_model", map[string]any{"model": v}); err != nil {
		return err
	}
	s.changeModel(v)
	return nil
}

// control sends a settings request to the running CLI. If the CLI cannot be
// started the setting is only kept for the next start.
func (s *Session) control(ctx context.Context, subtype string, fields map[string]any) error {
	r, err := s.ensure(ctx)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, errSessionClosed) {
			return err
		}
		s.log.Debug().Err(err).Str("request", subtype).Msg("claude is not running; keeping the setting for its next start")
		return nil
	}
	if _, err := r.c.request(ctx, subtype, fields); err != nil {
		var ce *controlError
		if errors.As(err, &ce) {
			return acp.NewError(acp.CodeInvalidParams, ce.msg, map[string]any{"code": ce.code})
		}
		return fmt.Errorf("%w: %v", acp.ErrInternal, err)
	}
	return nil
}

// changeMode records a mode and, when it changed, tells the editor. Both the
// editor's requests and the CLI's own changes (leaving plan mode) land here;
// whichever comes first reports the change.
func (s *Session) changeMode(m string) {
	s.mu.Lock()
	if s.mode == m || !s.a.dialect.validMode(m) {
		s.mu.Unlock()
		return
	}
	s.mode = m
	opts := s.optionsLocked()
	s.mu.Unlock()
	s.update(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: acp.SessionModeID(m)}})
	s.update(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
}

// changeModel records the model (a select value, or the concrete id the CLI
// reports) and tells the editor when it changed.
func (s *Session) changeModel(v string) {
	s.mu.Lock()
	if sameModel(s.model, v, s.models) {
		s.mu.Unlock()
		return
	}
	if i := slices.IndexFunc(s.models, func(m model) bool { return m.value == v }); i < 0 {
		// A concrete id: show the alias that stands for it, if any.
		if j := slices.IndexFunc(s.models, func(m model) bool { return m.resolved == v && m.value != "default" }); j >= 0 {
			v = s.models[j].value
		}
	}
	s.model = v
	opts := s.optionsLocked()
	s.mu.Unlock()
	s.update(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
}

// applyInit takes the CLI's initialize answer: models, slash commands and
// the mode it actually runs in (settings may choose one). The first answer
// is reported to the editor; later ones (after a restart) only report a
// changed mode.
func (s *Session) applyInit(body []byte) {
	res := gjson.ParseBytes(body)
	m := res.Get("current_permission_mode").String()
	ms := parseModels(res.Get("models"))
	if len(ms) > 0 {
		s.a.models.put(s.cliKey, res.Get("claude_code_version").String(), ms)
	}
	s.mu.Lock()
	before := s.optionsLocked()
	// A session that opened with the list this executable reported last
	// time tells the editor only when the list differs; one that opened
	// without a list always sends the CLI's options.
	listChanged := len(ms) > 0 && !slices.Equal(ms, s.models) || !s.listed
	if len(ms) > 0 {
		s.models = ms
		s.efforts = effortLevels(res.Get("models"))
	}
	first := !s.informed
	s.informed, s.listed = true, true
	changed := first && s.a.dialect.validMode(m) && m != s.mode
	if changed {
		s.mode = m
	}
	opts := s.optionsLocked()
	// The effort levels are known only now, even with a remembered list.
	listChanged = listChanged || !reflect.DeepEqual(before, opts)
	s.mu.Unlock()
	s.setCommands(res.Get("commands"), first)
	if !first {
		s.changeMode(m)
		if listChanged {
			s.update(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
		}
		return
	}
	if changed {
		s.update(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: acp.SessionModeID(m)}})
	}
	if changed || listChanged {
		s.update(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
	}
}

// autoDecision answers without asking when the session's mode or an
// "always reject" rule already decides.
func (s *Session) autoDecision(req canUseTool) (answer any, rejectAlways bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejects[ruleKey(req.tool, req.input)] {
		return denyAnswer{Behavior: "deny", Message: denyMessage}, false
	}
	if s.mode == "bypassPermissions" && req.tool != "ExitPlanMode" {
		return allowAnswer{Behavior: "allow", UpdatedInput: req.input}, false
	}
	if s.efs != nil {
		if a := editorFSDecision(req.tool, s.mode, s.cwd, s.dirs, s.efs.local, req.input); a != nil {
			return a, false
		}
	}
	return nil, false
}

func (s *Session) rememberReject(req canUseTool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejects == nil {
		s.rejects = map[string]bool{}
	}
	s.rejects[ruleKey(req.tool, req.input)] = true
}
