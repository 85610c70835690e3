package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
)

// runBridge runs the binary to completion with env added and returns its
// stdout, stderr and exit code.
func runBridge(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestNativeAgentCommandLine: misuse and a missing CLI are reported on
// stderr with what to do, stdout stays empty (it belongs to ACP), and the
// exit code is 2.
func TestNativeAgentCommandLine(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"acp without a command", []string{"acp"}, []string{"needs the agent's command line after --"}},
		{"acp of a missing command", []string{"acp", "--", "/no/such/agent"}, []string{`cannot run "/no/such/agent"`}},
		{"gemini missing", []string{"gemini"}, []string{"npm install -g @google/gemini-cli", "ACPBRIDGE_GEMINI_PATH", "--path"}},
		{"qwen missing", []string{"qwen"}, []string{"npm install -g @qwen-code/qwen-code", "Node.js 22", "ACPBRIDGE_QWEN_PATH"}},
		{"opencode missing", []string{"opencode"}, []string{"npm install -g opencode-ai", "ACPBRIDGE_OPENCODE_PATH"}},
		{"copilot missing", []string{"copilot"}, []string{"npm install -g @github/copilot", "ACPBRIDGE_COPILOT_PATH"}},
		{"gemini --path missing", []string{"gemini", "--path", "/no/such/gemini"}, []string{`"/no/such/gemini"`, "@google/gemini-cli"}},
		{"served gemini missing", []string{"serve", "gemini"}, []string{"npm install -g @google/gemini-cli"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBridge(t, []string{"PATH=" + empty}, tt.args...)
			if stdout != "" {
				t.Errorf("stdout must carry only ACP, got %q", stdout)
			}
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr:\n%s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// fakeCLI writes an executable named name in dir that records its
// arguments in dir/name.args and then runs the scripted ACP agent.
func fakeCLI(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	body := "#!/bin/sh\necho \"$@\" >> '" + p + ".args'\nexec '" + acpAgentPath + "' \"$@\"\n"
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentsCommand: every known agent is listed, installed or not, with
// its install command and snippets that run this binary with the found CLI.
func TestAgentsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gemini := fakeCLI(t, dir, "gemini")
	env := []string{"PATH=" + dir, "ACPBRIDGE_CLAUDE_PATH=", "ACPBRIDGE_GEMINI_PATH=", "ACPBRIDGE_QWEN_PATH=",
		"ACPBRIDGE_OPENCODE_PATH=", "ACPBRIDGE_COPILOT_PATH=", "XDG_CACHE_HOME=" + t.TempDir()}
	stdout, stderr, code := runBridge(t, env, "agents", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []struct {
		Name, Path, Version, Install string
		Installed                    bool
		Zed                          map[string]struct {
			Type, Command string
			Args          []string
		}
		Acpx map[string]struct{ Command string }
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("agents --json: %v\n%s", err, stdout)
	}
	var names []string
	for _, a := range got {
		if strings.HasPrefix(a.Name, "pty:") {
			continue // TestAgentsListsPTYProfiles
		}
		names = append(names, a.Name)
		if a.Name != "gemini" {
			if a.Installed || !strings.HasPrefix(a.Install, "npm install -g ") {
				t.Errorf("%s: installed=%v install=%q, want not installed with an npm command", a.Name, a.Installed, a.Install)
			}
			continue
		}
		if !a.Installed || a.Path != gemini || a.Version != "acpagent 1.0.0" {
			t.Errorf("gemini: installed=%v path=%q version=%q, want %s, acpagent 1.0.0", a.Installed, a.Path, a.Version, gemini)
		}
		z := a.Zed["Gemini CLI (acpbridge)"]
		if z.Type != "custom" || z.Command != binPath || !reflect.DeepEqual(z.Args, []string{"gemini", "--path", gemini}) {
			t.Errorf("Zed snippet %+v", a.Zed)
		}
		if c := a.Acpx["gemini-bridge"].Command; c != binPath+" gemini --path "+gemini {
			t.Errorf("acpx command %q", c)
		}
	}
	if want := []string{"claude", "codex", "gemini", "qwen", "opencode", "copilot"}; !reflect.DeepEqual(names, want) {
		t.Errorf("agents %v, want %v", names, want)
	}

	text, _, code := runBridge(t, env, "agents")
	for _, w := range []string{"claude (Claude Code)", "copilot (GitHub Copilot CLI)", "version acpagent 1.0.0", "Zed:", "JetBrains:", "acpx:"} {
		if code != 0 || !strings.Contains(text, w) {
			t.Errorf("agents output (exit %d) lacks %q:\n%s", code, w, text)
		}
	}
	if strings.Contains(text, "replay") {
		t.Errorf("agents offers the replay demo although gemini is installed:\n%s", text)
	}
	// The second listing took gemini's version from the cache.
	if b, err := os.ReadFile(gemini + ".args"); err != nil || strings.Count(string(b), "--version") != 1 {
		t.Errorf("gemini was run with %q (%v); want --version once for two listings", b, err)
	}
}

// TestAgentsOffersDemo: with no agent CLI installed, agents offers the
// replay demo built into the binary, with snippets that run it.
func TestAgentsOffersDemo(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=" + t.TempDir(), "ACPBRIDGE_CLAUDE_PATH=", "ACPBRIDGE_GEMINI_PATH=", "ACPBRIDGE_QWEN_PATH=",
		"ACPBRIDGE_CODEX_PATH=", "ACPBRIDGE_OPENCODE_PATH=", "ACPBRIDGE_COPILOT_PATH=", "XDG_CACHE_HOME=" + t.TempDir()}
	text, stderr, code := runBridge(t, env, "agents")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{
		"No agent CLI is installed here yet",
		"  runs as:    " + binPath + " replay --pace 20ms demo ",
		`"acpbridge replay demo":{"args":["replay","--pace","20ms","demo"],"command":"` + binPath + `","type":"custom"}`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("agents output lacks %q:\n%s", w, text)
		}
	}
}

// TestSDKClientDrivesNativeAgent has the independent Go SDK client run a
// session through `acpbridge opencode` (the scripted agent standing in for
// the CLI): the ACP subcommand is added, the agent's capabilities and
// updates come through, and a permission request is answered.
func TestSDKClientDrivesNativeAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opencode := fakeCLI(t, dir, "opencode")
	b := startBridge(t, "opencode", "--path", opencode, "--", "--print-logs")
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image {
		t.Errorf("the agent's capabilities were not passed on: %+v", init.AgentCapabilities)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "ask" {
		t.Errorf("modes not passed on: %+v", sess.Modes)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("permission")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", res.StopReason)
	}
	var text []string
	for _, u := range cl.Updates() {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			text = append(text, u.AgentMessageChunk.Content.Text.Text)
		}
	}
	asked := len(cl.Asked())
	if asked != 1 || !reflect.DeepEqual(text, []string{"tool allowed"}) {
		t.Errorf("asked %d times, agent said %q; want one question and \"tool allowed\"", asked, text)
	}
	args, err := os.ReadFile(opencode + ".args")
	if err != nil || !strings.HasPrefix(string(args), "acp --print-logs\n") {
		t.Errorf("the CLI was started with %q, want \"acp --print-logs\" (%v)", args, err)
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}

// TestServeNativeAgent serves the scripted native-ACP agent over HTTP to two
// clients at once: each runs a turn with a permission request answered by
// POST, sees its own session only, and gets the agent's text.
func TestServeNativeAgent(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "acp", "--name", "scripted", "--", acpAgentPath)
	done := make(chan error, 2)
	for i := range 2 {
		r := dialRemote(t, s.url, fmt.Sprintf("native-%d", i), "")
		go func() { done <- runNativeTurn(r, t.TempDir()) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	s.stop(t)
}

// runNativeTurn runs the scripted agent's permission turn; it reports
// instead of failing, as it runs on its own goroutine.
func runNativeTurn(r *remote, cwd string) error {
	sid := r.open(cwd)
	id := r.call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "permission"}}})
	foreign, said := 0, ""
	m, asked := r.until(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		if p != nil && p["sessionId"] != nil && p["sessionId"] != sid {
			foreign++
		}
		if u, _ := p["update"].(map[string]any); u != nil && u["sessionUpdate"] == "agent_message_chunk" {
			said, _ = u["content"].(map[string]any)["text"].(string)
		}
		return answerTo(id)(m)
	})
	stop, _ := m["result"].(map[string]any)["stopReason"].(string)
	// The remote answers with option "allow_once", which the scripted
	// agent does not offer: it takes that as a rejection.
	if stop != "end_turn" || asked != 1 || foreign != 0 || said != "tool rejected" {
		return fmt.Errorf("turn ended %q after %d permission requests, with %d messages of other sessions, the agent saying %q",
			stop, asked, foreign, said)
	}
	return nil
}
