package claude

import "testing"

// TestBypassOfferedOnlyWhenLaunchedForIt: the CLI refuses a switch to
// bypassPermissions unless launched for it, so it is offered only then.
func TestBypassOfferedOnlyWhenLaunchedForIt(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want bool
	}{
		{"plain", Options{}, false},
		{"initial mode", Options{PermissionMode: "bypassPermissions"}, true},
		{"allow flag", Options{ExtraArgs: []string{"--model", "x", "--allow-dangerously-skip-permissions"}}, true},
		{"skip flag", Options{ExtraArgs: []string{"--dangerously-skip-permissions"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := modeState("default", bypassLaunched(tt.opts))
			got := false
			for _, m := range st.AvailableModes {
				got = got || m.ID == "bypassPermissions"
			}
			opts := configOptions("default", "default", nil, bypassLaunched(tt.opts))
			inConfig := false
			for _, o := range opts[0].Select.Options.Ungrouped {
				inConfig = inConfig || o.Value == "bypassPermissions"
			}
			if got != tt.want || inConfig != tt.want {
				t.Errorf("bypassPermissions offered: modes %v, config %v; want %v", got, inConfig, tt.want)
			}
		})
	}
}
