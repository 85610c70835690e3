package claude

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Config option ids, as other Claude ACP adapters name them.
const (
	configMode  = "mode"
	configModel = "model"
)

// offered lists the modes a session offers. Claude Code's
// bypassPermissions is left out unless the CLI was launched so that it
// accepts it: otherwise it refuses the switch (bypass_not_launched), and a
// mode the user cannot select must not be shown.
func offered(d *Dialect, bypass bool) []Mode {
	all := slices.Clone(d.Modes)
	if bypass || !d.isClaude() {
		return all
	}
	return slices.DeleteFunc(all, func(m Mode) bool { return m.ID == "bypassPermissions" })
}

// validMode reports whether id is one of Claude Code's permission modes
// (those ExitPlanMode may switch to).
func validMode(id string) bool { return Claude().validMode(id) }

// model is one entry of the CLI's model list; resolved is the concrete model
// id an alias such as "default" or "sonnet" stands for.
type model struct {
	value, resolved, name, description string
}

// sameModel reports whether the CLI's concrete model id reported is what
// the select value current stands for.
func sameModel(current, reported string, models []model) bool {
	if current == reported {
		return true
	}
	i := slices.IndexFunc(models, func(m model) bool { return m.value == current })
	return i >= 0 && models[i].resolved == reported
}

// parseModels reads the initialize answer's model list.
func parseModels(list gjson.Result) []model {
	var out []model
	for _, m := range list.Array() {
		v := m.Get("value").String()
		if v == "" {
			continue
		}
		out = append(out, model{value: v, resolved: m.Get("resolvedModel").String(),
			name: orDefault(m.Get("displayName").String(), v), description: m.Get("description").String()})
	}
	return out
}

// hiddenCommand reports slash commands that only make sense in the
// interactive terminal UI.
func hiddenCommand(name string) bool {
	switch name {
	case "login", "logout", "keybindings-help", "release-notes", "todos", "output-style:new", "cost":
		return true
	}
	return false
}

// parseCommands reads the initialize answer's slash commands.
func parseCommands(list gjson.Result) []acp.AvailableCommand {
	out := []acp.AvailableCommand{}
	for _, c := range list.Array() {
		name := c.Get("name").String()
		if name == "" || hiddenCommand(name) {
			continue
		}
		cmd := acp.AvailableCommand{Name: name, Description: c.Get("description").String()}
		if h := c.Get("argumentHint").String(); h != "" {
			cmd.Input = &acp.AvailableCommandInput{Hint: h}
		}
		out = append(out, cmd)
	}
	return out
}

// modeStateOf is the ACP (legacy) mode state for the current mode.
func modeStateOf(d *Dialect, current string, bypass bool) *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeID: acp.SessionModeID(current)}
	for _, m := range offered(d, bypass) {
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{
			ID: acp.SessionModeID(m.ID), Name: m.Name, Description: acp.Ptr(m.Description)})
	}
	return st
}

// configOptionsOf is the full config option list: a mode select and a model
// select. The current model is listed even when the CLI did not name it.
func configOptionsOf(d *Dialect, curMode, curModel string, models []model, bypass bool) []acp.SessionConfigOption {
	var modeOpts, modelOpts []acp.SessionConfigSelectOption
	for _, m := range offered(d, bypass) {
		modeOpts = append(modeOpts, acp.SessionConfigSelectOption{
			Value: acp.SessionConfigValueID(m.ID), Name: m.Name, Description: acp.Ptr(m.Description)})
	}
	if !slices.ContainsFunc(models, func(m model) bool { return m.value == curModel }) {
		models = append([]model{{value: curModel, name: curModel}}, models...)
	}
	for _, m := range models {
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(m.value), Name: m.name}
		if m.description != "" {
			o.Description = acp.Ptr(m.description)
		}
		modelOpts = append(modelOpts, o)
	}
	return []acp.SessionConfigOption{
		{
			ID: configMode, Name: "Mode", Category: acp.Ptr(acp.SessionConfigOptionCategoryMode),
			Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(curMode),
				Options: acp.SessionConfigSelectOptions{Ungrouped: modeOpts}},
		},
		{
			ID: configModel, Name: "Model", Category: acp.Ptr(acp.SessionConfigOptionCategoryModel),
			Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(curModel),
				Options: acp.SessionConfigSelectOptions{Ungrouped: modelOpts}},
		},
	}
}
