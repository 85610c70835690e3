//go:build linux

package pty

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// claudeHooksProfile wires Claude Code's hooks to the session's socket: the
// Stop hook ends the turn. Its screen side is only what this test needs
// (the built-in claude profile is another matter); the fallback is long,
// so that only the Stop report can end the turn within the test's deadline.
const claudeHooksProfile = `name = "claude-hooks"
version = "Claude Code 2.1.329"
idle = '^❯ *$'
busy = 'esc to interrupt'
interrupt = ["esc"]
quiet = "300ms"
start = "40s"
chrome = [
  '^─{20,}$',
  '^❯ *$',
  '^  .*(?:shift\+tab to cycle|esc to interrupt|\? for shortcuts|for agents).*$',
  '^[·✢✳✶✻✽*] \S+ for \d.*$',
  '^[·✢✳✶✻✽*] \S+…(?: .*)?$',
]
strip = '^(?:● ?|  )'

[signal]
args = ["--settings", '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":{notify_sh_json}}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":{notify_sh_json}}]}],"Notification":[{"matcher":"permission_prompt","hooks":[{"type":"command","command":{notify_sh_json}}]}]}}']
turn_complete = '"hook_event_name"\s*:\s*"Stop"'
submitted = '"hook_event_name"\s*:\s*"UserPromptSubmit"'
permission = '"hook_event_name"\s*:\s*"Notification"'
fallback = "10m"
`

// TestRealClaudeTUIStopHookEndsTurn runs the pinned Claude Code TUI offline
// with its hooks reporting to the session's socket through `pty-notify`:
// the Stop hook ends each turn.
func TestRealClaudeTUIStopHookEndsTurn(t *testing.T) {
	requireUnix(t)
	bin := claudeenv.Require(t)
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hello from Claude.")}},
		{Match: "again", Blocks: []modelserver.Block{modelserver.Text("Second answer.")}},
	}, Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Done.")}}}, modelserver.Options{})
	url := srv.Start()
	t.Cleanup(srv.Close)
	root := t.TempDir()
	home, tmp, project := filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "project")
	for _, d := range []string{filepath.Join(home, ".claude"), tmp, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A user who has onboarded, approved the key and trusted the folder.
	key := modelserver.DummyAPIKey
	state, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{project: map[string]any{"hasTrustDialogAccepted": true}},
	})
	for _, f := range []string{filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", ".claude.json")} {
		if err := os.WriteFile(f, state, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := append(modelserver.ClaudeEnv(url, home, tmp), "TERM=xterm-256color", "COLUMNS=200", "LINES=50")
	p, err := ParseProfile("claude-hooks.toml", []byte(claudeHooksProfile))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(p, Options{Command: []string{bin}, Env: env, Name: "claude",
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel), StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	c := newClient(nil)
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, tt := range []struct{ prompt, want string }{{"say hi", "Hello from Claude."}, {"again please", "Second answer."}} {
		c.reset()
		stop, err := prompt(t, ctx, s, tt.prompt)
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v; want end_turn (from the Stop hook: the idle fallback is 10m)", tt.prompt, stop, err)
		}
		// Reading Claude's full-screen reply is the claude profile's
		// business; the report must come once the reply is drawn.
		if screen := s.(*closer).session.scr.view().text; !strings.Contains(screen, tt.want) {
			t.Errorf("the turn ended before the screen showed %q:\n%s", tt.want, screen)
		}
	}
}
