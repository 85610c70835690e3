package claude

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestRealCLIModelsAtOpen opens sessions on the real CLI: the first, on a
// fresh cache, lists the CLI's own models (haiku among them, as acpx
// --model haiku needs); a second bridge (a new adapter on the same cache
// file) lists them before its CLI has answered.
func TestRealCLIModelsAtOpen(t *testing.T) {
	bin, home, tmp, project := realCLIWorld(t)
	srv := modelserver.New(&modelserver.Scenario{}, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	file := filepath.Join(home, "cache", "claude-models.json")
	open := func() (acp.Session, time.Duration) {
		a := New(Options{Path: bin, Env: modelserver.ClaudeEnv(url, home, tmp), Logger: testLogger(t),
			ModelCache: file, ModelWait: time.Minute, StopGrace: 2 * time.Second})
		t.Cleanup(func() { _ = a.Close() })
		start := time.Now()
		s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, &acptest.Client{})
		if err != nil {
			t.Fatal(err)
		}
		return s, time.Since(start)
	}
	s1, d1 := open()
	got := modelValues(s1.State().ConfigOptions)
	if !slices.Contains(got, "haiku") || !slices.Contains(got, "default") {
		t.Fatalf("first session lists models %q, want the CLI's (default, haiku, ...)", got)
	}
	s2, d2 := open()
	if got2 := modelValues(s2.State().ConfigOptions); !slices.Equal(got2, got) {
		t.Errorf("second session lists models %q, want the remembered %q", got2, got)
	}
	t.Logf("session/new: %v on a fresh cache, %v with the list known", d1, d2)
}
