//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestClaudeTUIStdinEOF runs the real Claude Code TUI through
// `acpbridge pty --profile claude` offline: the editor trusts the new
// folder when asked, a text turn goes through, and then the editor goes
// away (stdin EOF) while the TUI's Bash tool runs `sleep 60` in a session
// of its own. The bridge must exit and leave no process of the run behind.
func TestClaudeTUIStdinEOF(t *testing.T) {
	bin := claudeenv.Require(t)
	env, err := exec.LookPath("env")
	if err != nil {
		t.Fatalf("no env(1) to start the TUI with its environment: %v", err)
	}
	root := t.TempDir()
	home, project, tmp := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "tmp")
	for _, d := range []string{filepath.Join(home, ".claude"), project, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := modelserver.DummyAPIKey
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true,
		"customApiKeyResponses": map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}}})
	for _, f := range []string{filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", ".claude.json")} {
		if err := os.WriteFile(f, cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Blocks: []modelserver.Block{modelserver.Text("Hello from the TUI.")}},
		{Blocks: []modelserver.Block{modelserver.ToolUse("toolu_sleep", "Bash",
			map[string]string{"command": "echo started && sleep 60 && echo finished", "description": "Wait a minute"})}},
	}}, modelserver.Options{})
	url := srv.Start()
	t.Cleanup(srv.Close)

	// env(1) sets the TUI's environment; it keeps the rest of the bridge's,
	// which carries the marker the bridge finds the TUI's processes by.
	argv := []string{"pty", "--profile", "claude", "--", env}
	for _, kv := range modelserver.ClaudeEnv(url, home, tmp) {
		if k, _, _ := strings.Cut(kv, "="); k != "TERM" && k != "COLUMNS" && k != "LINES" {
			argv = append(argv, kv)
		}
	}
	argv = append(argv, "TERM=xterm-256color", bin, "--permission-mode", "default")
	start := time.Now()
	b := startBridge(t, argv...)
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: project, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("Say hello.")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt = %+v, %v; want end_turn\n%s", res, err, b.Stderr)
	}
	if got, want := agentText(cl), "Hello from the TUI."; got != want {
		t.Errorf("agent text = %q, want %q", got, want)
	}
	go func() {
		_, _ = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("Wait a minute.")}})
	}()
	for !runProcess(t, home, "sleep\x0060\x00") {
		select {
		case <-ctx.Done():
			t.Fatalf("the Bash tool's sleep 60 never started\n%s", b.Stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	eof := time.Now()
	if err := b.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.Exited():
	case <-time.After(15 * time.Second):
		t.Fatalf("bridge still running %v after the stop", 15*time.Second)
	}
	t.Logf("started %s before stdin EOF; exited %s after it", eof.Sub(start).Round(100*time.Millisecond), time.Since(eof).Round(10*time.Millisecond))
	(&bridgeproc.Tree{Home: home}).Check(t)
}

// runProcess reports whether a process of the run has the command line
// cmdline (NUL-separated).
func runProcess(t *testing.T, home, cmdline string) bool {
	t.Helper()
	for _, pid := range bridgeproc.HomeProcesses(home) {
		if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); err == nil && strings.HasSuffix(string(b), cmdline) {
			return true
		}
	}
	return false
}
