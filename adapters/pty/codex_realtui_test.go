//go:build linux

package pty

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// codexTUIConfig is what the Codex TUI needs on top of codexenv's offline
// config to start at its input box: no screen-reader question, no
// model-migration screen.
const codexTUIConfig = `
[tui]
screen_reader_detection_done = true

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
`

func codexTUIScenario() *modelserver.Scenario {
	shell := func(cmd string) modelserver.Block {
		in, _ := json.Marshal(map[string]string{"command": cmd, "sandbox_permissions": "require_escalated", "justification": "make a file"})
		return modelserver.Block{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell, Input: in}
	}
	patch := func(body string) modelserver.Block {
		in, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n" + body + "*** End Patch\n"})
		return modelserver.Block{Type: modelserver.BlockToolUse, Role: modelserver.RolePatch, Input: in}
	}
	return &modelserver.Scenario{
		Turns: []modelserver.Turn{
			{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hello from the scripted model.")}},
			{Match: "run allowed", Blocks: []modelserver.Block{shell("touch allowed-file && echo allowed-done")}},
			{Match: "allowed-done", Blocks: []modelserver.Block{modelserver.Text("The command ran.")}},
			{Match: "run declined", Blocks: []modelserver.Block{shell("touch declined-file")}},
			{Match: "stream slowly", DeltaDelayMS: 20, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
				Text: strings.Repeat("slow words ", 300), Deltas: 300}}},
			{Match: "back again", Blocks: []modelserver.Block{modelserver.Text("Back after the cancel.")}},
			{Match: "start a daemon", Blocks: []modelserver.Block{shell(codexenv.DetachCommand)}},
			{Match: "daemon-started", Blocks: []modelserver.Block{modelserver.Text("Started.")}},
			{Match: "patch allowed", Blocks: []modelserver.Block{patch("*** Add File: allowed.md\n+hello\n")}},
			{Match: "patch rejected", Blocks: []modelserver.Block{patch("*** Add File: rejected.md\n+hello\n")}},
			{Match: "patch two files", Blocks: []modelserver.Block{patch("*** Add File: one.md\n+one\n*** Add File: sub/two.md\n+two\n")}},
			{Match: "patch always", Blocks: []modelserver.Block{patch("*** Add File: always.md\n+first\n")}},
			{Match: "patch once more", Blocks: []modelserver.Block{patch("*** Update File: always.md\n@@\n-first\n+second\n")}},
			{Match: "fail at the model", Error: &modelserver.APIError{Status: 400, Message: "bad request from the scripted model"}},
			// The busy line hides while a reply streams: each pause here
			// is an idle screen that is quiet for longer than the
			// profile's quiet window.
		},
		Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Done.")}},
	}
}

// codexTUI starts the real Codex TUI offline on a PTY through the built-in
// codex profile, in a new git folder (so Codex asks to trust it), and
// returns the session and the environment.
func codexTUI(t *testing.T, c acp.Client) (acp.Session, *Adapter, *codexenv.Env) {
	t.Helper()
	return startCodexTUI(t, c, func(bin string, _ *codexenv.Env) []string { return []string{bin} })
}

// startCodexTUI is codexTUI with the agent's command line made by argv
// from the Codex executable and the environment.
func startCodexTUI(t *testing.T, c acp.Client, argv func(bin string, env *codexenv.Env) []string) (acp.Session, *Adapter, *codexenv.Env) {
	t.Helper()
	requireUnix(t)
	bin := codexenv.Require(t)
	srv := modelserver.New(codexTUIScenario(), modelserver.Options{})
	url := srv.Start()
	t.Cleanup(srv.Close)
	env, err := codexenv.New(t.TempDir(), url, codexTUIConfig)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", env.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	p, err := FindProfile("", bin)
	if err != nil || p.Name != "codex" {
		t.Fatalf("FindProfile(%q) = %v, %v; want the codex profile", bin, p, err)
	}
	// Every turn here must end on Codex's report or its done line: the
	// fallback for an idle screen neither ended would pass a turn that
	// lost both after seconds; here it outlasts the tests' deadlines.
	p.Signal.Fallback = Duration(time.Hour)
	// codexenv's TERM=dumb is for the app-server; a TUI needs a terminal.
	vars := append(append([]string(nil), env.Vars...), "TERM=xterm-256color")
	a, err := New(p, Options{Command: argv(bin, env), Env: vars,
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel), StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: env.Dir}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return s, a, env
}

// TestRealCodexTUI drives the pinned Codex TUI through its built-in
// profile: the trust dialog of a new folder, a text turn, a model error, a command
// allowed and one rejected, a cancel while streaming and the turn after
// it, then Close, after which nothing Codex started runs, its app-server
// daemon included.
func TestRealCodexTUI(t *testing.T) {
	c := newClient(nil)
	s, _, env := codexTUI(t, c)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	turn := func(t *testing.T, text, answer string) string {
		t.Helper()
		c.reset()
		c.answer = choose(answer)
		start := time.Now()
		stop, err := prompt(t, ctx, s, text)
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v; want end_turn", text, stop, err)
		}
		t.Logf("turn %q took %s", text, time.Since(start).Round(time.Millisecond))
		return c.text()
	}

	t.Run("text", func(t *testing.T) {
		if got, want := turn(t, "say hi", ""), "Hello from the scripted model."; got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
		// The new folder's trust dialog came and was answered: Codex
		// saves the decision.
		cfg, err := os.ReadFile(filepath.Join(env.Home, "config.toml"))
		if err != nil || !strings.Contains(string(cfg), `trust_level = "trusted"`) {
			t.Errorf("config.toml has no trusted folder (%v):\n%s", err, cfg)
		}
	})
	t.Run("model error", func(t *testing.T) {
		// Codex shows the API's error under a "■" and reports the turn to
		// no one: the line is the turn's end, and its text the reply.
		got := codexTurn(t, s, c, "fail at the model", "")
		if !strings.Contains(got, "bad request from the scripted model") {
			t.Errorf("reply = %q, want the model's error", got)
		}
	})
	t.Run("command allowed", func(t *testing.T) {
		got := turn(t, "run allowed", "Yes, proceed")
		if !strings.HasSuffix(got, "The command ran.") {
			t.Errorf("reply = %q, want it to end with the model's answer", got)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "allowed-file")); err != nil {
			t.Errorf("the allowed command did not run: %v", err)
		}
		checkCodexAsked(t, c, "touch allowed-file && echo allowed-done")
	})
	t.Run("command rejected", func(t *testing.T) {
		turn(t, "run declined", "No, and tell Codex what to do differently")
		if _, err := os.Stat(filepath.Join(env.Dir, "declined-file")); !os.IsNotExist(err) {
			t.Errorf("the rejected command ran (stat: %v)", err)
		}
		checkCodexAsked(t, c, "touch declined-file")
	})
	t.Run("cancel while streaming", func(t *testing.T) {
		c = newClient(nil)
		s.(*closer).session.c = c
		tctx, tcancel := context.WithCancel(ctx)
		done := make(chan acp.StopReason, 1)
		go func() {
			stop, err := prompt(t, tctx, s, "stream slowly")
			if err != nil {
				t.Errorf("Prompt: %v", err)
			}
			done <- stop
		}()
		select {
		case <-c.first:
		case <-time.After(30 * time.Second):
			tcancel()
			<-done
			t.Fatalf("no reply text within 30 s; the screen shows:\n%s", s.(*closer).session.scr.view().text)
		}
		tcancel()
		cancelled := time.Now()
		if stop := <-done; stop != acp.StopReasonCancelled {
			t.Fatalf("stop = %q, want cancelled", stop)
		}
		t.Logf("cancelled after %s", time.Since(cancelled).Round(time.Millisecond))
		if got, want := turn(t, "back again", ""), "Back after the cancel."; got != want {
			t.Errorf("reply after the cancel = %q, want %q", got, want)
		}
	})

	t.Run("a command leaves a daemon", func(t *testing.T) {
		turn(t, "start a daemon", "Yes, proceed")
		waitForDetached(t, env)
	})

	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := env.Processes(0); len(left) > 0 {
		t.Errorf("after Close these still run: %v", left)
	}
}

func checkCodexAsked(t *testing.T, c *client, title string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == 0 {
		t.Fatal("no permission asked")
	}
	req := c.asked[len(c.asked)-1]
	if got := *req.ToolCall.Title; got != title {
		t.Errorf("permission title = %q, want %q", got, title)
	}
	var kinds []string
	for _, o := range req.Options {
		kinds = append(kinds, string(o.Kind))
	}
	if got, want := strings.Join(kinds, ","), "allow_once,allow_always,reject_once"; got != want {
		t.Errorf("option kinds = %s, want %s", got, want)
	}
}

// TestRealCodexTUICrashLeavesNoDaemon kills the Codex TUI from outside, as
// a crash would, after a command of its has left a daemon in a session of
// its own: such a daemon outlives the TUI by itself, and the end of the
// TUI's output must come only once it is gone too.
func TestRealCodexTUICrashLeavesNoDaemon(t *testing.T) {
	c := newClient(choose("Yes, proceed"))
	s, _, env := codexTUI(t, c)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if stop, err := prompt(t, ctx, s, "start a daemon"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	inner := s.(*closer).session
	waitForDetached(t, env)
	if err := syscall.Kill(inner.proc.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inner.exited:
	case <-ctx.Done():
		t.Fatal("the PTY stayed open after the TUI was killed")
	}
	if left := env.Processes(0); len(left) > 0 {
		t.Errorf("after the TUI died these still run: %v", left)
	}
	s.Close()
}

// waitForDetached waits for the process codexenv.DetachCommand left. It
// has its own session once the command has printed; /proc is looked at.
func waitForDetached(t *testing.T, env *codexenv.Env) {
	t.Helper()
	has := func() bool {
		for _, p := range env.Processes(0) {
			if strings.Contains(p, " sleep 613") {
				return true
			}
		}
		return false
	}
	for wait := time.Now().Add(10 * time.Second); !has(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatalf("no detached process among %v: the test would prove nothing", env.Processes(0))
		}
	}
}
