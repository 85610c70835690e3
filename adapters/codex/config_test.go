package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// recordedModels is the model list Codex 0.169 answered in the recording.
func recordedModels(t *testing.T) []model {
	t.Helper()
	for _, e := range loadRecording(t, "command_patch.jsonl") {
		var m struct {
			Result struct {
				Data []model `json:"data"`
			} `json:"result"`
		}
		if e.Dir == "in" && json.Unmarshal(e.Msg, &m) == nil && len(m.Result.Data) > 0 {
			return m.Result.Data
		}
	}
	t.Fatal("no model list in the recording")
	return nil
}

func TestConfigOptions(t *testing.T) {
	models := recordedModels(t)
	tests := []struct {
		name string
		set  settings
		want string // id=current:values per option
	}{
		{"listed model, its default effort", settings{mode: ModeAuto, model: "gpt-5.5"},
			"mode=auto:read-only,auto,full-access collaboration_mode=default model=gpt-5.5 reasoning_effort=medium"},
		{"chosen effort", settings{mode: ModeReadOnly, model: "gpt-5.5", effort: "high"},
			"mode=read-only:read-only,auto,full-access collaboration_mode=default model=gpt-5.5 reasoning_effort=high"},
		{"model Codex does not list", settings{mode: ModeAuto, model: "my-model"},
			"mode=auto:read-only,auto,full-access collaboration_mode=default model=my-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range configOptions(tt.set, models) {
				s := string(o.ID) + "=" + string(o.Select.CurrentValue)
				if o.ID == cfgMode {
					var vs []string
					for _, v := range o.Select.Options.Ungrouped {
						vs = append(vs, string(v.Value))
					}
					s += ":" + strings.Join(vs, ",")
				}
				if !hasValue([]acp.SessionConfigOption{o}, o.ID, string(o.Select.CurrentValue)) {
					t.Errorf("%s: current value %s is not among its options", o.ID, o.Select.CurrentValue)
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("options = %s, want %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}
