// The agents here are started through shims that leave a grandchild,
// whose end is checked in /proc (hygiene_test.go).

//go:build linux

package e2e

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// noOtherAgents are flags that leave every agent of `auto` not installed
// but those the test points at.
func noOtherAgents(except ...string) []string {
	var out []string
	for _, name := range []string{"claude", "codex", "gemini", "qwen", "opencode", "copilot"} {
		skip := false
		for _, e := range except {
			skip = skip || e == name
		}
		if !skip {
			out = append(out, "--"+name+"-path", "/no/such/"+name)
		}
	}
	return out
}

// TestAutoSwitchesAgents has the independent Go SDK client drive
// `acpbridge auto` with Claude Code (the fake CLI playing a recorded turn)
// and Gemini CLI (the scripted ACP agent) installed: session/new lists both
// in the agent option, Claude Code first; a turn runs on Claude Code; the
// switch to Gemini stops Claude Code's processes, says the conversation
// starts anew, and the next turn, in the same session, is Gemini's; an
// unknown agent is refused with invalid params.
func TestAutoSwitchesAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	claude, pidFile := shimWithGrandchild(t, dir, "claude", fakeAgentPath)
	gemini := fakeCLI(t, dir, "gemini")
	args := append([]string{"auto", "--claude-path", claude, "--gemini-path", gemini}, noOtherAgents("claude", "gemini")...)
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: args, Env: append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(),
		"ACPBRIDGE_FAKEAGENT="+fixture("claude/text.txtar"), "ACPBRIDGE_CLAUDE_MODEL_CACHE=-")})
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	opt := agentOption(t, sess.ConfigOptions)
	if opt.CurrentValue != "claude" || len(*opt.Options.Ungrouped) != 2 {
		t.Fatalf("agent option %+v, want claude current, two agents", opt)
	}
	values := *opt.Options.Ungrouped
	if values[0].Value != "claude" || values[1].Value != "gemini" || values[1].Name != "Gemini CLI acpagent 1.0.0" ||
		!strings.HasPrefix(values[0].Name, "Claude Code") {
		t.Errorf("agents listed %+v, want Claude Code, then Gemini CLI with its version", values)
	}

	mark, _ := cl.Mark()
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("Say hello in one short sentence.")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("Claude Code's turn: %v, %+v", err, res)
	}
	if said := acpclient.AgentText(cl.UpdatesSince(mark)); said == "" {
		t.Error("Claude Code's turn said nothing")
	}
	pids := readAllPids(t, pidFile) // the version probe's, and the session's CLI with its grandchild
	alive := 0
	for _, pid := range pids {
		if bridgeproc.Alive(pid) {
			alive++
		}
	}
	if alive < 2 {
		t.Fatalf("of Claude Code's processes %v, %d run before the switch, want its CLI and grandchild: the test would prove nothing", pids, alive)
	}

	_, err = conn.SetSessionConfigOption(ctx, setAgent(sess.SessionId, "nosuch"))
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("choosing an unknown agent: %v, want invalid params (-32602)", err)
	}

	mark, _ = cl.Mark()
	set, err := conn.SetSessionConfigOption(ctx, setAgent(sess.SessionId, "gemini"))
	if err != nil {
		t.Fatalf("switching to gemini: %v", err)
	}
	if got := agentOption(t, set.ConfigOptions).CurrentValue; got != "gemini" {
		t.Errorf("after the switch the agent option says %q", got)
	}
	if !hasOption(set.ConfigOptions, "mode") {
		t.Errorf("the answer lacks Gemini's own options: %+v", set.ConfigOptions)
	}
	if said := acpclient.AgentText(cl.UpdatesSince(mark)); !strings.Contains(said, "starts anew") {
		t.Errorf("the switch said %q, want a word that the conversation starts anew", said)
	}
	noSurvivors(t, pids, "for Claude Code, after the switch to Gemini")

	mark, _ = cl.Mark()
	res, err = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("echo from gemini")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("Gemini's turn: %v, %+v", err, res)
	}
	if said := acpclient.AgentText(cl.UpdatesSince(mark)); !strings.Contains(said, "echo from gemini") {
		t.Errorf("Gemini's turn said %q, want the scripted agent's echo", said)
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}

// TestAutoWithoutAgents: with no agent installed, the bridge still
// initializes (offering the terminal logins), and session/new is answered
// with an error that says how to install each agent.
func TestAutoWithoutAgents(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: append([]string{"auto"}, noOtherAgents()...),
		Env: append(os.Environ(), "PATH="+empty, "XDG_CACHE_HOME="+t.TempDir())})
	conn := acpclient.New(sdk.PermissionOptionKindAllowOnce).Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: empty, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("session/new with no agent installed: %v, want an error", err)
	}
	for _, w := range []string{"npm install -g @anthropic-ai/claude-code", "npm install -g @openai/codex", "npm install -g @google/gemini-cli"} {
		if !strings.Contains(re.Message, w) {
			t.Errorf("the error does not say %q: %s", w, re.Message)
		}
	}
}

// TestAutoDefault: --default picks the agent new sessions start with, and
// one that is not installed is a mistake on the command line.
func TestAutoDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gemini, qwen := fakeCLI(t, dir, "gemini"), fakeCLI(t, dir, "qwen")
	args := append([]string{"auto", "--default", "qwen", "--gemini-path", gemini, "--qwen-path", qwen}, noOtherAgents("gemini", "qwen")...)
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: args})
	conn := acpclient.New(sdk.PermissionOptionKindAllowOnce).Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if got := agentOption(t, sess.ConfigOptions).CurrentValue; got != "qwen" {
		t.Errorf("new session runs %q, want qwen (--default)", got)
	}

	text, _, code := runBridge(t, nil, "agents")
	if code != 0 || !strings.Contains(text, binPath+" auto ") {
		t.Errorf("agents (exit %d) does not show the one-line set-up:\n%s", code, text)
	}
	_, stderr, code := runBridge(t, nil, append([]string{"auto", "--default", "codex"}, noOtherAgents()...)...)
	if code != 2 || !strings.Contains(stderr, `--default "codex" is not an installed agent`) {
		t.Errorf("--default of an agent not installed: exit %d, stderr %q", code, stderr)
	}
}

func setAgent(id sdk.SessionId, name string) sdk.SetSessionConfigOptionRequest {
	return sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: "agent", Value: sdk.SessionConfigValueId(name)}}
}

func agentOption(t *testing.T, opts []sdk.SessionConfigOption) *sdk.SessionConfigOptionSelect {
	t.Helper()
	for _, o := range opts {
		if o.Select != nil && o.Select.Id == "agent" {
			if o.Select.Options.Ungrouped == nil {
				t.Fatalf("agent option has no flat list: %+v", o.Select)
			}
			return o.Select
		}
	}
	t.Fatalf("no agent option in %+v", opts)
	return nil
}

func hasOption(opts []sdk.SessionConfigOption, id string) bool {
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return true
		}
	}
	return false
}
