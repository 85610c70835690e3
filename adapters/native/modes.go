package native

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Ids of the config options the bridge synthesises from modes and models.
const (
	modeOptionID  = "mode"
	modelOptionID = "model"
)

// modeConfig bridges the two ways ACP offers a session's mode and model,
// for agents that offer only one (fixtures/testsupport/agentenv/QUIRKS.md):
//
//   - Gemini CLI and Qwen Code answer modes and the unstable models, no
//     configOptions: the bridge adds a mode and a model select option,
//     serves session/set_config_option for them with session/set_mode and
//     session/set_model, and follows the agent's current_mode_update with a
//     config_option_update. Gemini's current model, missing from its own
//     list, is added to it.
//   - Copilot CLI answers a mode config option only, no modes: the bridge
//     adds modes and serves session/set_mode with
//     session/set_config_option.
//
// The zero value synthesises nothing.
type modeConfig struct {
	mu sync.Mutex
	// options: configOptions are synthesised; modes and models are what
	// they are built from (nil when the agent offered none).
	options bool
	modes   *acp.SessionModeState
	models  *modelState
	// modeOption is the id of the agent's mode config option from which
	// modes are synthesised ("" when they are not).
	modeOption string
	current    string // the current mode, for synthesised modes
}

// modelState is the unstable "models" member of a session's answer.
type modelState struct {
	CurrentModelID  string      `json:"currentModelId"`
	AvailableModels []modelInfo `json:"availableModels"`
}

type modelInfo struct {
	ModelID     string  `json:"modelId"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
}

// fixOpen completes an answer that opened a session (session/new, load,
// resume) with what the agent left out, and remembers what it synthesised.
func (m *modeConfig) fixOpen(res json.RawMessage) json.RawMessage {
	hasOptions := bytes.Contains(res, []byte(`"configOptions"`))
	hasModes := bytes.Contains(res, []byte(`"modes"`))
	if hasOptions == hasModes && !bytes.Contains(res, []byte(`"models"`)) {
		return res
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(res, &fields) != nil {
		return res
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case isAbsent(fields["configOptions"]) && (!isAbsent(fields["modes"]) || !isAbsent(fields["models"])):
		json.Unmarshal(fields["modes"], &m.modes)
		json.Unmarshal(fields["models"], &m.models)
		if mo := m.models; mo != nil && mo.CurrentModelID != "" && !mo.has(mo.CurrentModelID) {
			mo.AvailableModels = append(mo.AvailableModels, modelInfo{ModelID: mo.CurrentModelID, Name: mo.CurrentModelID})
			fields["models"], _ = json.Marshal(mo)
		}
		m.options = m.modes != nil || m.models != nil
		fields["configOptions"], _ = json.Marshal(m.optionsLocked())
	case isAbsent(fields["modes"]) && !isAbsent(fields["configOptions"]):
		modes := m.modesFrom(fields["configOptions"])
		if modes == nil {
			return res
		}
		fields["modes"], _ = json.Marshal(modes)
	default:
		return res
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return res
	}
	return out
}

func isAbsent(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

func (mo *modelState) has(id string) bool {
	for _, a := range mo.AvailableModels {
		if a.ModelID == id {
			return true
		}
	}
	return false
}

// optionsLocked is the synthesised config options. mu must be held.
func (m *modeConfig) optionsLocked() []acp.SessionConfigOption {
	var out []acp.SessionConfigOption
	if m.modes != nil {
		var vals []acp.SessionConfigSelectOption
		for _, md := range m.modes.AvailableModes {
			vals = append(vals, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(md.ID), Name: md.Name, Description: md.Description})
		}
		out = append(out, selectOption(modeOptionID, "Mode", acp.SessionConfigOptionCategoryMode, string(m.modes.CurrentModeID), vals))
	}
	if m.models != nil {
		var vals []acp.SessionConfigSelectOption
		for _, md := range m.models.AvailableModels {
			name := md.Name
			if name == "" {
				name = md.ModelID
			}
			vals = append(vals, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(md.ModelID), Name: name, Description: md.Description})
		}
		out = append(out, selectOption(modelOptionID, "Model", acp.SessionConfigOptionCategoryModel, m.models.CurrentModelID, vals))
	}
	return out
}

func selectOption(id, name string, cat acp.SessionConfigOptionCategory, current string, vals []acp.SessionConfigSelectOption) acp.SessionConfigOption {
	return acp.SessionConfigOption{ID: acp.SessionConfigID(id), Name: name, Category: &cat,
		Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(current),
			Options: acp.SessionConfigSelectOptions{Ungrouped: vals}}}
}

// agentOption is a select config option as an agent sends it; grouped
// values are flattened.
type agentOption struct {
	ID           string `json:"id"`
	Category     string `json:"category"`
	Type         string `json:"type"`
	CurrentValue string `json:"currentValue"`
	Options      []struct {
		Value       string  `json:"value"`
		Name        string  `json:"name"`
		Description *string `json:"description"`
		Options     []struct {
			Value       string  `json:"value"`
			Name        string  `json:"name"`
			Description *string `json:"description"`
		} `json:"options"`
	} `json:"options"`
}

// modesFrom builds modes from the agent's mode config option, remembering
// which option it is. mu must be held.
func (m *modeConfig) modesFrom(options json.RawMessage) *acp.SessionModeState {
	var opts []agentOption
	if json.Unmarshal(options, &opts) != nil {
		return nil
	}
	for _, o := range opts {
		if o.Category != "mode" || o.Type != "select" {
			continue
		}
		st := &acp.SessionModeState{CurrentModeID: acp.SessionModeID(o.CurrentValue), AvailableModes: []acp.SessionMode{}}
		add := func(v, name string, d *string) {
			if name == "" {
				name = v
			}
			st.AvailableModes = append(st.AvailableModes, acp.SessionMode{ID: acp.SessionModeID(v), Name: name, Description: d})
		}
		for _, v := range o.Options {
			if v.Value != "" {
				add(v.Value, v.Name, v.Description)
			}
			for _, g := range v.Options {
				add(g.Value, g.Name, g.Description)
			}
		}
		m.modeOption, m.current = o.ID, o.CurrentValue
		return st
	}
	return nil
}

// forward serves the requests that synthesised state answers or must
// follow: it returns handled false for every other request.
func (m *modeConfig) forward(ctx context.Context, c *agentConn, sid acp.SessionID, method string, params json.RawMessage) (res json.RawMessage, handled bool, err error) {
	m.mu.Lock()
	options, modeOption := m.options, m.modeOption
	m.mu.Unlock()
	switch {
	case method == acp.MethodSessionSetConfigOption && options:
		return m.setOption(ctx, c, sid, params)
	case (method == acp.MethodSessionSetMode || method == acp.MethodSessionSetModel) && options:
		// The editor used the agent's own method: the synthesised
		// options follow it.
		res, err := c.call(ctx, method, params)
		if err == nil {
			m.followOwn(params)
		}
		return res, true, err
	case method == acp.MethodSessionSetConfigOption && modeOption != "":
		res, err := c.call(ctx, method, params)
		if err == nil {
			m.followOptions(res)
		}
		return res, true, err
	case method == acp.MethodSessionSetMode && modeOption != "":
		return m.setModeByOption(ctx, c, sid, modeOption, params)
	}
	return nil, false, nil
}

// followOwn records a mode or model the agent accepted through its own
// set_mode or set_model.
func (m *modeConfig) followOwn(params json.RawMessage) {
	var r struct {
		ModeID  string `json:"modeId"`
		ModelID string `json:"modelId"`
	}
	json.Unmarshal(params, &r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.modes != nil && r.ModeID != "" {
		m.modes.CurrentModeID = acp.SessionModeID(r.ModeID)
	}
	if m.models != nil && r.ModelID != "" {
		m.models.CurrentModelID = r.ModelID
	}
}

// followOptions records the mode in the agent's answer to its own
// set_config_option.
func (m *modeConfig) followOptions(res json.RawMessage) {
	var r struct {
		ConfigOptions []agentOption `json:"configOptions"`
	}
	json.Unmarshal(res, &r)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range r.ConfigOptions {
		if o.ID == m.modeOption {
			m.current = o.CurrentValue
		}
	}
}

// setModeByOption serves session/set_mode with the agent's mode config
// option.
func (m *modeConfig) setModeByOption(ctx context.Context, c *agentConn, sid acp.SessionID, option string, params json.RawMessage) (json.RawMessage, bool, error) {
	var r struct {
		ModeID string `json:"modeId"`
	}
	if err := json.Unmarshal(params, &r); err != nil || r.ModeID == "" {
		return nil, true, acp.InvalidParams("modeId", "a mode id is required")
	}
	p, _ := json.Marshal(map[string]any{"sessionId": sid, "configId": option, "value": r.ModeID})
	res, err := c.call(ctx, acp.MethodSessionSetConfigOption, p)
	if err != nil {
		return nil, true, fmt.Errorf("setting the mode with %s: %w", acp.MethodSessionSetConfigOption, err)
	}
	m.mu.Lock()
	m.current = r.ModeID
	m.mu.Unlock()
	m.followOptions(res)
	return json.RawMessage(`{}`), true, nil
}

// setOption serves session/set_config_option for a synthesised option with
// the agent's own method for it.
func (m *modeConfig) setOption(ctx context.Context, c *agentConn, sid acp.SessionID, params json.RawMessage) (json.RawMessage, bool, error) {
	var r struct {
		ConfigID string          `json:"configId"`
		Value    json.RawMessage `json:"value"`
	}
	if json.Unmarshal(params, &r) != nil {
		return nil, false, nil
	}
	var value string
	if json.Unmarshal(r.Value, &value) != nil || value == "" {
		return nil, false, nil
	}
	m.mu.Lock()
	modes, models := m.modes, m.models
	m.mu.Unlock()
	var method string
	var p []byte
	switch {
	case r.ConfigID == modeOptionID && modes != nil:
		method = acp.MethodSessionSetMode
		p, _ = json.Marshal(map[string]any{"sessionId": sid, "modeId": value})
	case r.ConfigID == modelOptionID && models != nil:
		method = acp.MethodSessionSetModel
		p, _ = json.Marshal(map[string]any{"sessionId": sid, "modelId": value})
	default:
		return nil, false, nil
	}
	if _, err := c.call(ctx, method, p); err != nil {
		return nil, true, fmt.Errorf("setting %s with %s: %w", r.ConfigID, method, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if method == acp.MethodSessionSetMode {
		m.modes.CurrentModeID = acp.SessionModeID(value)
	} else {
		m.models.CurrentModelID = value
	}
	out, err := json.Marshal(acp.SetSessionConfigOptionResponse{ConfigOptions: m.optionsLocked()})
	return out, true, err
}

// modeChanged follows an agent's update about the mode with the one the
// editor may be reading instead: config_option_update after
// current_mode_update for synthesised options, current_mode_update after a
// config_option_update that changes the mode option of synthesised modes.
// It returns nil when there is nothing to add.
func (m *modeConfig) modeChanged(kind []byte, params json.RawMessage) json.RawMessage {
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			CurrentModeID string          `json:"currentModeId"`
			ConfigOptions json.RawMessage `json:"configOptions"`
		} `json:"update"`
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !(m.options && m.modes != nil) && m.modeOption == "" {
		return nil
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	var u any
	switch {
	case string(kind) == "current_mode_update" && m.options && m.modes != nil && p.Update.CurrentModeID != "":
		m.modes.CurrentModeID = acp.SessionModeID(p.Update.CurrentModeID)
		u = acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: m.optionsLocked()}}
	case string(kind) == "config_option_update" && m.modeOption != "":
		var opts []agentOption
		json.Unmarshal(p.Update.ConfigOptions, &opts)
		for _, o := range opts {
			if o.ID == m.modeOption && o.CurrentValue != m.current {
				m.current = o.CurrentValue
				u = acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: acp.SessionModeID(o.CurrentValue)}}
			}
		}
	}
	if u == nil {
		return nil
	}
	out, err := json.Marshal(map[string]any{"sessionId": p.SessionID, "update": u})
	if err != nil {
		return nil
	}
	return out
}
