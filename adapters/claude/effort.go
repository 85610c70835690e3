package claude

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// configEffort is the config option of the model's reasoning effort (ACP
// category thought_level), the TUI's /effort.
const configEffort = "effort"

// effortDefault is the effort option's value for "no override": the CLI
// uses the model's own default (or the effortLevel of its settings).
const effortDefault = "default"

// defaultEffortLevels are the levels offered until the CLI has said which
// the model supports: those of `claude --effort` in the pinned CLI.
var defaultEffortLevels = []string{"low", "medium", "high", "xhigh", "max"}

// effortLevels reads, per model value of the initialize answer, the effort
// levels it supports; a model without effort support maps to nil.
func effortLevels(list gjson.Result) map[string][]string {
	out := map[string][]string{}
	for _, m := range list.Array() {
		v := m.Get("value").String()
		if v == "" {
			continue
		}
		var levels []string
		if m.Get("supportsEffort").Bool() {
			for _, l := range m.Get("supportedEffortLevels").Array() {
				levels = append(levels, l.String())
			}
			if len(levels) == 0 {
				levels = defaultEffortLevels
			}
		}
		out[v] = levels
		if r := m.Get("resolvedModel").String(); r != "" {
			if _, dup := out[r]; !dup {
				out[r] = levels
			}
		}
	}
	return out
}

// effortChoicesLocked are the values the effort option offers for the
// current model, or nil when the model has no effort setting. Callers
// hold mu.
func (s *Session) effortChoicesLocked() []string {
	levels, known := s.efforts[s.model]
	if !known {
		levels = defaultEffortLevels // the CLI has not listed its models yet
	}
	if levels == nil {
		return nil
	}
	return append([]string{effortDefault}, levels...)
}

// optionsLocked is the session's full list of config options: mode, model
// and, when the model has one, effort. Callers hold mu.
func (s *Session) optionsLocked() []acp.SessionConfigOption {
	opts := configOptionsOf(s.a.dialect, s.mode, s.model, s.models, s.a.bypass)
	choices := s.effortChoicesLocked()
	if choices == nil {
		return opts
	}
	if !slices.Contains(choices, s.effort) {
		choices = append(choices, s.effort)
	}
	sel := make([]acp.SessionConfigSelectOption, 0, len(choices))
	for _, c := range choices {
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(c), Name: effortName(c)}
		if c == effortDefault {
			o.Description = acp.Ptr("The model's default effort")
		}
		sel = append(sel, o)
	}
	return append(opts, acp.SessionConfigOption{
		ID: configEffort, Name: "Effort", Category: acp.Ptr(acp.SessionConfigOptionCategoryThoughtLevel),
		Description: acp.Ptr("How hard the model thinks before it answers"),
		Select: &acp.SessionConfigSelect{CurrentValue: acp.SessionConfigValueID(s.effort),
			Options: acp.SessionConfigSelectOptions{Ungrouped: sel}},
	})
}

// effortName is how the TUI names an effort level.
func effortName(level string) string {
	switch level {
	case effortDefault:
		return "Default"
	case "xhigh":
		return "Extra high"
	case "max":
		return "Max"
	case "":
		return level
	}
	return strings.ToUpper(level[:1]) + level[1:]
}

// setEffort changes the reasoning effort of the running CLI
// (apply_flag_settings effortLevel, what the TUI's /effort does: it applies
// from the next request on, without a restart). A CLI started later gets it
// as --effort.
func (s *Session) setEffort(ctx context.Context, v string) error {
	s.mu.Lock()
	ok := slices.Contains(s.effortChoicesLocked(), v)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: the model offers no effort level %q", acp.ErrInvalidParams, v)
	}
	var level any = v
	if v == effortDefault {
		level = nil
	}
	if err := s.control(ctx, "apply_flag_settings", map[string]any{"settings": map[string]any{"effortLevel": level}}); err != nil {
		return err
	}
	s.mu.Lock()
	s.effort = v
	s.mu.Unlock()
	return nil
}

// argEffort is the effort given to the CLI with --effort among args, so the
// option shows what the CLI was told.
func argEffort(args []string) string {
	v := ""
	for i, a := range args {
		if a == "--effort" && i+1 < len(args) {
			v = args[i+1]
		} else if after, ok := strings.CutPrefix(a, "--effort="); ok {
			v = after
		}
	}
	return v
}
