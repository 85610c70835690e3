//go:build linux

package pty

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// claudeTUI is the real Claude Code TUI running offline under the pty
// adapter: a scripted model server, a HOME seeded as for a user who has
// logged in once (onboarding done, the API key approved) and a new project
// folder it has never trusted.
type claudeTUI struct {
	a       *Adapter
	s       acp.Session
	srv     *modelserver.Server
	home    string
	config  string // CLAUDE_CONFIG_DIR, not below HOME: the transcript is found by it
	project string
	start   time.Time
}

// startClaudeTUI starts the TUI on the scenario under profile p (the
// built-in claude profile when nil), with its permission dialogs on.
func startClaudeTUI(t testing.TB, sc *modelserver.Scenario, p *Profile, c acp.Client) *claudeTUI {
	t.Helper()
	requireUnix(t)
	bin := claudeenv.Require(t)
	if p == nil {
		var err error
		if p, err = FindProfile("claude", ""); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	w := &claudeTUI{home: filepath.Join(root, "home"), config: filepath.Join(root, "claude-config"),
		project: filepath.Join(root, "project"), start: time.Now()}
	tmp := filepath.Join(root, "tmp")
	for _, d := range []string{w.home, w.project, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seedClaudeConfig(t, w.config)
	w.srv = modelserver.New(sc.Expand(map[string]string{"cwd": w.project}), modelserver.Options{Logf: t.Logf})
	url := w.srv.Start()
	t.Cleanup(w.srv.Close)

	var env []string
	for _, kv := range modelserver.ClaudeEnv(url, w.home, tmp) {
		// A terminal, not a pipe: the PTY's size is the screen's.
		if k, _, _ := strings.Cut(kv, "="); k == "TERM" || k == "COLUMNS" || k == "LINES" || k == "CLAUDE_CONFIG_DIR" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TERM=xterm-256color", "CLAUDE_CONFIG_DIR="+w.config)
	a, err := New(p, Options{Command: []string{bin, "--permission-mode", "default"}, Name: "claude", Env: env,
		Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w.a = a
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	if w.s, err = a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: w.project}, c); err != nil {
		t.Fatal(err)
	}
	return w
}

// seedClaudeConfig writes, into the CLI's config directory, the user
// config of someone who has logged in once: onboarding done and the API key
// approved, no project trusted, and a Stop hook of their own.
func seedClaudeConfig(t testing.TB, dir string) {
	t.Helper()
	key := modelserver.DummyAPIKey
	cfg, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	// The user's own Stop hook, which must run beside the profile's.
	hook := "echo stop >> " + filepath.Join(dir, userHookLog)
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
}

// userHookLog is the file, in the CLI's config directory, that the user's
// own Stop hook appends a line to at the end of each turn.
const userHookLog = "user-stop-hook.log"

// userHookRuns is how many times the user's own Stop hook ran, once it
// ran want times or a few seconds passed: the CLI runs an event's hooks
// side by side, so the profile's may report the turn's end first.
func (w *claudeTUI) userHookRuns(want int) int {
	limit := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(w.config, userHookLog))
		n := strings.Count(string(b), "stop\n")
		if n >= want || time.Now().After(limit) {
			return n
		}
		time.Sleep(20 * time.Millisecond) // a file: nothing to wait on
	}
}

// session is the adapter's session behind w.s, for the tests that look at
// its screen.
func (w *claudeTUI) session() *session { return w.s.(*closer).session }

// waitScreen waits until the screen shows text.
func (w *claudeTUI) waitScreen(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	s := w.session()
	for !strings.Contains(s.scr.view().text, text) {
		select {
		case <-ctx.Done():
			t.Fatalf("the screen never showed %q; it shows:\n%s", text, s.scr.view().text)
		case <-s.scr.changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hasProcess reports whether one of the agent's processes has the command
// line cmdline (NUL-separated, as in /proc/PID/cmdline).
func hasProcess(t *testing.T, home, cmdline string) bool {
	t.Helper()
	for _, pid := range agentProcesses(t, home) {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && strings.HasSuffix(string(b), cmdline) {
			return true
		}
	}
	return false
}

// agentProcesses are the pids of the processes still running with the
// test's HOME in their environment: the TUI and anything it started.
func agentProcesses(t *testing.T, home string) []int {
	t.Helper()
	want := []byte("HOME=" + home + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(b, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// claudeClient is an editor that answers permission requests from answers
// (an option's label each); a request with none queued is cancelled.
func claudeClient(answers chan string) *client {
	return newClient(func(req acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		select {
		case label := <-answers:
			return choose(label)(req)
		default:
			return acp.PermissionCancelled()
		}
	})
}

// asked returns the permission requests so far.
func (c *client) requests() []acp.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), c.asked...)
}
