package claude

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/modelserver"
)

// realCLIWith starts the adapter on the real CLI against the scripted
// model server playing sc (JSON, with {{cwd}} and {{home}} expanded) and
// returns the adapter, its server, and the project and home directories.
func realCLIWith(t *testing.T, sc string) (*Adapter, *modelserver.Server, string, string) {
	bin, home, tmp, project := realCLIWorld(t)
	parsed, err := modelserver.Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(parsed.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:        bin,
		Env:         modelserver.ClaudeEnv(url, home, tmp),
		Logger:      testLogger(t),
		CancelGrace: 20 * time.Second,
		StopGrace:   2 * time.Second,
	})
	t.Cleanup(func() { _ = a.Close() })
	return a, srv, project, home
}

// TestRealCLIEffort checks that the effort option reaches the model: the
// CLI's Messages requests carry the level chosen before the first prompt,
// and the one chosen between turns, without a restart.
func TestRealCLIEffort(t *testing.T) {
	a, srv, project, _ := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"One."}]},{"blocks":[{"type":"text","text":"Two."}]}]}`)
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for i, level := range []string{"low", "high"} {
		opts, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{SessionID: s.ID(), ConfigID: configEffort,
			Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID(level))}})
		if err != nil {
			t.Fatal(err)
		}
		if got := opts[len(opts)-1]; got.ID != configEffort || string(got.Select.CurrentValue) != level {
			t.Errorf("options after setting %s: last is %s = %s", level, got.ID, got.Select.CurrentValue)
		}
		if stop, err := s.Prompt(ctx, prompt("turn "+level)); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v", stop, err)
		}
		reqs := srv.MainRequests()
		if len(reqs) != i+1 {
			t.Fatalf("%d model requests after turn %d", len(reqs), i+1)
		}
		want := `"output_config":{"effort":"` + level + `"}`
		if !strings.Contains(string(reqs[i].Body), want) {
			t.Errorf("request %d does not carry %s", i+1, want)
		}
	}
}
