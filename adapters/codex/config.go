package codex

import (
	"context"
	"fmt"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Config option ids.
const (
	cfgMode   = "mode"
	cfgModel  = "model"
	cfgEffort = "reasoning_effort"
	// cfgCollab is Codex's collaboration mode: default, or plan, in which
	// the model plans with the user and may ask questions
	// (request_user_input is refused in default mode).
	cfgCollab = "collaboration_mode"
)

const mModelList = "model/list"

// model is one entry of model/list.
type model struct {
	ID                        string `json:"id"`
	DisplayName               string `json:"displayName"`
	Description               string `json:"description"`
	Hidden                    bool   `json:"hidden"`
	DefaultReasoningEffort    string `json:"defaultReasoningEffort"`
	SupportedReasoningEfforts []struct {
		ReasoningEffort string `json:"reasoningEffort"`
		Description     string `json:"description"`
	} `json:"supportedReasoningEfforts"`
}

// modelList fetches Codex's model list once per app-server.
type modelList struct {
	mu     sync.Mutex
	gen    int     // guarded by mu; the app-server the list came from
	models []model // guarded by mu
}

func (l *modelList) get(ctx context.Context, srv *appServer) ([]model, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gen == srv.gen && l.models != nil {
		return l.models, nil
	}
	var res struct {
		Data []model `json:"data"`
	}
	if err := srv.c.Call(ctx, mModelList, map[string]any{}, &res); err != nil {
		return nil, fmt.Errorf("listing codex models: %w", err)
	}
	l.gen, l.models = srv.gen, res.Data
	return l.models, nil
}

// settings are what the session's config options choose.
type settings struct {
	mode, model, effort string
	// collab is "" until chosen: Codex's own default then applies.
	collab string
}

// collaborationMode is turn/start's collaborationMode for the settings;
// nil until one was chosen.
func (st settings) collaborationMode() any {
	if st.collab == "" {
		return nil
	}
	var effort any
	if st.effort != "" {
		effort = st.effort
	}
	return map[string]any{"mode": st.collab, "settings": map[string]any{
		"model": st.model, "reasoning_effort": effort, "developer_instructions": nil}}
}

// configOptions are the mode, the model and its reasoning effort as
// select options. A current model missing from the list (a name set in
// config.toml or on the command line) is listed too, so the current value
// is always one of the options.
func configOptions(st settings, models []model) []acp.SessionConfigOption {
	modes := modeState(st.mode)
	var modeOpts []acp.SessionConfigSelectOption
	for _, m := range modes.AvailableModes {
		modeOpts = append(modeOpts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(m.ID), Name: m.Name, Description: m.Description})
	}
	out := []acp.SessionConfigOption{selectOption(cfgMode, "Approval preset", acp.SessionConfigOptionCategoryMode, st.mode, modeOpts)}
	collab := st.collab
	if collab == "" {
		collab = "default"
	}
	out = append(out, acp.SessionConfigOption{ID: cfgCollab, Name: "Collaboration",
		Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(collab), Options: acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
			{Value: "default", Name: "Default", Description: ptr("Codex works on the task")},
			{Value: "plan", Name: "Plan", Description: ptr("Codex plans with you first, and may ask you questions")},
		}}}})

	var modelOpts []acp.SessionConfigSelectOption
	var cur *model
	for i, m := range models {
		if m.Hidden && m.ID != st.model {
			continue
		}
		name := m.DisplayName
		if name == "" {
			name = m.ID
		}
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(m.ID), Name: name}
		if m.Description != "" {
			o.Description = ptr(m.Description)
		}
		modelOpts = append(modelOpts, o)
		if m.ID == st.model {
			cur = &models[i]
		}
	}
	if st.model == "" {
		return out
	}
	if cur == nil {
		modelOpts = append([]acp.SessionConfigSelectOption{{Value: acp.SessionConfigValueID(st.model), Name: st.model}}, modelOpts...)
	}
	out = append(out, selectOption(cfgModel, "Model", acp.SessionConfigOptionCategoryModel, st.model, modelOpts))
	if cur == nil || len(cur.SupportedReasoningEfforts) == 0 {
		return out
	}
	effort := st.effort
	if effort == "" {
		effort = cur.DefaultReasoningEffort
	}
	var effortOpts []acp.SessionConfigSelectOption
	for _, e := range cur.SupportedReasoningEfforts {
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(e.ReasoningEffort), Name: e.ReasoningEffort}
		if e.Description != "" {
			o.Description = ptr(e.Description)
		}
		effortOpts = append(effortOpts, o)
	}
	if effort != "" {
		out = append(out, selectOption(cfgEffort, "Reasoning effort", acp.SessionConfigOptionCategoryThoughtLevel, effort, effortOpts))
	}
	return out
}

func selectOption(id, name string, cat acp.SessionConfigOptionCategory, cur string, opts []acp.SessionConfigSelectOption) acp.SessionConfigOption {
	return acp.SessionConfigOption{ID: acp.SessionConfigID(id), Name: name, Category: &cat,
		Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(cur), Options: acp.SessionConfigSelectOptions{Ungrouped: opts}}}
}

// hasValue reports whether the select option id offers v.
func hasValue(opts []acp.SessionConfigOption, id acp.SessionConfigID, v string) bool {
	for _, o := range opts {
		if o.ID != id || o.Select == nil {
			continue
		}
		for _, so := range o.Select.Options.Ungrouped {
			if string(so.Value) == v {
				return true
			}
		}
	}
	return false
}
