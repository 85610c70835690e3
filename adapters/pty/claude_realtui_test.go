//go:build linux

package pty

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// The tests in this file drive the real Claude Code TUI (the pinned CLI,
// fixtures/testsupport/claudeenv) offline with the built-in claude profile. Each starts
// one TUI (a few seconds) and runs its turns in order on it, as a person
// would in one sitting; a step that fails stops the rest.

const (
	helloText  = "Hello! This reply is streamed in a few pieces."
	slowText   = "The project has three parts.\n\nThe protocol core, the adapters for each wrapped agent, and the fixtures that drive its tests. Let me go through each of them in turn."
	afterText  = "OK, starting over."
	allowText  = "Created allowed.txt for you."
	writeText  = "Wrote notes.md."
	lossyText  = "Here is **bold**, `code` and a list:\n\n- one\n- two\n\nAnd a line long enough to be wrapped by the terminal: " + lossyTail
	lossyTail  = "it goes on and on, past the two hundred columns of the screen, so that the screen shows it on two lines where the model wrote one, which only the transcript keeps as it was."
	trustTitle = "Accessing workspace:"
)

// claudeStory is the model's side of TestClaudeTUI, one turn a model
// request, in order.
func claudeStory() *modelserver.Scenario {
	bash := func(id, file string) modelserver.Block {
		return modelserver.ToolUse(id, "Bash", map[string]string{"command": "touch {{cwd}}/" + file, "description": "Create " + file})
	}
	hello := modelserver.Text(helloText)
	hello.Deltas = 4
	// 60 deltas 300 ms apart: the cancel comes at the first of them, and on
	// a loaded machine the TUI has shown the first text seconds late; the
	// turn must still be streaming then.
	slow := modelserver.Text(slowText)
	slow.Deltas = 60
	return &modelserver.Scenario{Turns: []modelserver.Turn{
		{Blocks: []modelserver.Block{hello}},
		{Blocks: []modelserver.Block{bash("toolu_allow", "allowed.txt")}},
		{Blocks: []modelserver.Block{modelserver.Text(allowText)}},
		{Blocks: []modelserver.Block{bash("toolu_reject", "rejected.txt")}},
		{Blocks: []modelserver.Block{modelserver.ToolUse("toolu_write", "Write", map[string]string{"file_path": "{{cwd}}/notes.md", "content": "# Notes\n"})}},
		{Blocks: []modelserver.Block{modelserver.Text(writeText)}},
		{Blocks: []modelserver.Block{slow}, DeltaDelayMS: 300},
		{Blocks: []modelserver.Block{modelserver.Text(afterText)}},
		{Blocks: []modelserver.Block{modelserver.Text(lossyText)}},
		{Blocks: []modelserver.Block{modelserver.Text("Nothing else.")}},
		{Blocks: []modelserver.Block{modelserver.Text("Nothing more.")}},
		{Blocks: []modelserver.Block{modelserver.ToolUse("toolu_sleep", "Bash", map[string]string{"command": "echo started && sleep 60 && echo finished", "description": "Wait a minute"})}},
	}}
}

func TestClaudeTUI(t *testing.T) {
	answers := make(chan string, 4)
	c := claudeClient(answers)
	w := startClaudeTUI(t, claudeStory(), nil, c)

	turn := func(t *testing.T, text string) (acp.StopReason, error) {
		t.Helper()
		c.reset()
		return prompt(t, deadline(t), w.s, text)
	}
	t.Run("the trust dialog is asked, then a text turn", func(t *testing.T) {
		answers <- "Yes, I trust this folder"
		stop, err := turn(t, "Say hello.")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		reqs := c.requests()
		if len(reqs) != 1 || *reqs[0].ToolCall.Title != trustTitle+": "+w.project {
			t.Fatalf("permission requests %+v, want one titled %q", reqs, trustTitle+": "+w.project)
		}
		want := []acp.PermissionOption{
			{OptionID: "1", Name: "Yes, I trust this folder", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "2", Name: "No, exit", Kind: acp.PermissionOptionKindRejectOnce},
		}
		if !equalOptions(reqs[0].Options, want) {
			t.Errorf("trust options %+v, want %+v", reqs[0].Options, want)
		}
		if got := c.text(); got != helloText {
			t.Errorf("reply = %q, want %q", got, helloText)
		}
		if n := w.userHookRuns(1); n != 1 {
			t.Errorf("the user's own Stop hook ran %d times, want once: the profile's hooks must not replace it", n)
		}
	})
	t.Run("a permission allowed", func(t *testing.T) {
		answers <- "Yes"
		stop, err := turn(t, "Create allowed.txt.")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if _, err := os.Stat(filepath.Join(w.project, "allowed.txt")); err != nil {
			t.Errorf("the allowed command did not run: %v", err)
		}
		reqs := c.requests()
		req := reqs[len(reqs)-1]
		if got, want := *req.ToolCall.Title, "Bash command: touch "+filepath.Join(w.project, "allowed.txt"); got != want {
			t.Errorf("title = %q, want %q", got, want)
		}
		want := []acp.PermissionOption{
			{OptionID: "1", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "2", Name: "Yes, and always allow access to " + w.project + " from this project", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: "3", Name: "Yes, and switch to auto mode · auto mode handles these prompts for you", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "4", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
		}
		if !equalOptions(req.Options, want) {
			t.Errorf("options:\n%+v\nwant\n%+v", req.Options, want)
		}
		if got := c.text(); got != allowText {
			t.Errorf("reply = %q, want %q", got, allowText)
		}
	})
	t.Run("a permission rejected", func(t *testing.T) {
		answers <- "No"
		stop, err := turn(t, "Create rejected.txt.")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if _, err := os.Stat(filepath.Join(w.project, "rejected.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the rejected command ran: %v", err)
		}
		if got := c.text(); got != "" {
			t.Errorf("reply = %q, want none (the TUI ends the turn at a rejection)", got)
		}
	})
	t.Run("a file write allowed", func(t *testing.T) {
		answers <- "Yes"
		stop, err := turn(t, "Write the notes.")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if b, err := os.ReadFile(filepath.Join(w.project, "notes.md")); err != nil || string(b) != "# Notes\n" {
			t.Errorf("notes.md = %q, %v; want the written notes", b, err)
		}
		reqs := c.requests()
		req := reqs[len(reqs)-1]
		if got, want := *req.ToolCall.Title, "Create file: notes.md"; got != want {
			t.Errorf("title = %q, want %q", got, want)
		}
		var kinds []acp.PermissionOptionKind
		for _, o := range req.Options {
			kinds = append(kinds, o.Kind)
		}
		if want := []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways, acp.PermissionOptionKindRejectOnce}; !slices.Equal(kinds, want) {
			t.Errorf("option kinds %v, want %v (options %+v)", kinds, want, req.Options)
		}
		if got := c.text(); got != writeText {
			t.Errorf("reply = %q, want %q", got, writeText)
		}
	})
	t.Run("cancel while streaming", func(t *testing.T) {
		c.reset()
		ctx, cancel := context.WithCancel(deadline(t))
		defer cancel()
		done := make(chan error, 1)
		var stop acp.StopReason
		go func() {
			var err error
			stop, err = prompt(t, ctx, w.s, "Explain the project layout.")
			done <- err
		}()
		w.waitScreen(t, deadline(t), "The project has three parts")
		cancelled := time.Now()
		cancel()
		if err := <-done; err != nil || stop != acp.StopReasonCancelled {
			t.Fatalf("Prompt = %q, %v; want cancelled", stop, err)
		}
		t.Logf("cancelled %s after the cancel", time.Since(cancelled).Round(time.Millisecond))
		if v := w.session().scr.view(); !w.session().p.Idle.MatchString(v.text) {
			t.Errorf("the TUI is not idle after the cancel:\n%s", v.text)
		}
		stop, err := turn(t, "Start over.")
		if err != nil || stop != acp.StopReasonEndTurn || c.text() != afterText {
			b, _ := os.ReadFile(w.session().transcript)
			t.Fatalf("after the cancel: Prompt = %q, %v, reply %q; want end_turn, %q; the transcript:\n%s", stop, err, c.text(), afterText, b)
		}
	})
	t.Run("a pasted prompt, and markdown and a wrapped line exact from the transcript", func(t *testing.T) {
		stop, err := turn(t, "Show me some markdown.\nA list, please,\nand a long line.")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if got := c.text(); got != lossyText {
			t.Errorf("reply = %q, want %q", got, lossyText)
		}
		// What makes the case: the screen alone loses the markup and
		// breaks the line.
		if v := w.session().scr.view().text; strings.Contains(v, "**bold**") || strings.Contains(v, lossyTail) {
			t.Errorf("the screen shows the reply as written; the case shows nothing:\n%s", v)
		}
	})
	t.Run("a screen the profile does not know: the Stop hook ends the turn, else it fails", func(t *testing.T) {
		// The same TUI, as if it had changed: a profile for an older
		// version whose idle screen was a bare "> " prompt.
		s := w.session()
		q := *s.p
		q.Version = "Claude Code 0.9"
		if err := q.Idle.UnmarshalText([]byte(`^> $`)); err != nil {
			t.Fatal(err)
		}
		q.Unknown = Duration(2 * time.Second)
		p := s.p
		s.p = &q
		defer func() { s.p = p }()
		stop, err := turn(t, "Anything else?")
		if err != nil || stop != acp.StopReasonEndTurn || c.text() != "Nothing else." {
			t.Fatalf("Prompt = %q, %v, reply %q; want end_turn on the Stop hook's report and the transcript's text", stop, err, c.text())
		}
		// Without the report (a hook the agent no longer runs), the screen
		// alone decides, and it matches nothing.
		g := *q.Signal
		g.TurnComplete = "a report no agent sends"
		q.Signal = &g
		stop, err = turn(t, "Anything more?")
		want := `matches nothing profile "claude" knows (written against Claude Code 0.9; the agent shows version ` +
			strings.TrimPrefix(p.Version, "Claude Code ") + ")"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Prompt = %q, %v; want an error containing %q", stop, err, want)
		}
	})
	t.Run("close while a tool runs leaves nothing behind", func(t *testing.T) {
		// Claude Code runs a Bash command in a session of its own: stopping
		// the TUI's process group alone would leave the sleep running. (It
		// runs this one without asking, but may ask.)
		answers <- "Yes"
		type result struct {
			stop acp.StopReason
			err  error
		}
		done := make(chan result, 1)
		go func() {
			stop, err := prompt(t, deadline(t), w.s, "Wait a minute.")
			done <- result{stop, err}
		}()
		ctx := deadline(t)
		for !hasProcess(t, w.home, "sleep\x0060\x00") {
			select {
			case r := <-done:
				t.Fatalf("the turn ended (%q, %v) before the tool ran; the screen shows:\n%s", r.stop, r.err, w.session().scr.view().text)
			case <-ctx.Done():
				t.Fatal("the Bash tool's sleep 60 never started")
			case <-time.After(50 * time.Millisecond):
			}
		}
		if err := w.a.Close(); err != nil {
			t.Fatalf("closing: %v", err)
		}
		// The close interrupts the TUI first, which may end the turn
		// normally; either way the prompt must return.
		<-done
		if left := agentProcesses(t, w.home); len(left) != 0 {
			t.Errorf("processes left after the close: %v", left)
		}
	})
	t.Logf("the TUI ran for %s", time.Since(w.start).Round(100*time.Millisecond))
}

// Without the transcript the reply is read from the screen: clean text,
// without the "● " bullet, the spinner, the footer or the prompt's echo.
func TestClaudeTUIScreenReply(t *testing.T) {
	p, err := FindProfile("claude", "")
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Transcript = nil
	answers := make(chan string, 1)
	answers <- "Yes, I trust this folder"
	c := claudeClient(answers)
	hello := modelserver.Text(helloText)
	hello.Deltas = 4
	w := startClaudeTUI(t, &modelserver.Scenario{Turns: []modelserver.Turn{{Blocks: []modelserver.Block{hello}, DeltaDelayMS: 100}}}, &q, c)
	stop, err := prompt(t, deadline(t), w.s, "Say hello.")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if got := c.text(); got != helloText {
		t.Errorf("reply = %q, want %q (chunks %q)", got, helloText, c.chunks)
	}
}

// An editor that does not trust the folder: the TUI is told no (and
// exits), the prompt fails saying why, and so does the next one.
func TestClaudeTUITrustRejected(t *testing.T) {
	answers := make(chan string, 1)
	answers <- "No, exit"
	c := claudeClient(answers)
	w := startClaudeTUI(t, &modelserver.Scenario{Turns: []modelserver.Turn{{Blocks: []modelserver.Block{modelserver.Text("unused")}}}}, nil, c)
	_, err := prompt(t, deadline(t), w.s, "Say hello.")
	if err == nil || !strings.Contains(err.Error(), `answered "No, exit" to claude's start-up dialog "trust this folder"`) {
		t.Fatalf("Prompt error = %v, want one saying the editor declined the trust dialog", err)
	}
	if _, err2 := prompt(t, deadline(t), w.s, "Say hello."); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("the next prompt: %v, want the same error", err2)
	}
	if n := len(w.srv.MainRequests()); n != 0 {
		t.Errorf("the model was asked %d times in a folder the user did not trust", n)
	}
	if err := w.a.Close(); err != nil {
		t.Fatalf("closing: %v", err)
	}
	if left := agentProcesses(t, w.home); len(left) != 0 {
		t.Errorf("processes left after the close: %v", left)
	}
	cfg, _ := os.ReadFile(filepath.Join(w.config, ".claude.json"))
	var v struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	_ = json.Unmarshal(cfg, &v)
	if v.Projects[w.project].HasTrustDialogAccepted {
		t.Errorf("the folder was trusted")
	}
}

// The built-in profile's Stop hook ends the turns, the reply is still the
// transcript's, exact, and the user's own Stop hook still runs. The idle
// fallback is made long here, so that only the report can end a turn
// within the test's deadline.
func TestClaudeTUIStopHook(t *testing.T) {
	p, err := FindProfile("claude", "")
	if err != nil {
		t.Fatal(err)
	}
	q, g := *p, *p.Signal
	g.Fallback = Duration(10 * time.Minute)
	q.Signal = &g
	answers := make(chan string, 1)
	answers <- "Yes, I trust this folder"
	c := claudeClient(answers)
	w := startClaudeTUI(t, &modelserver.Scenario{Turns: []modelserver.Turn{
		{Blocks: []modelserver.Block{modelserver.Text(lossyText)}},
		{Blocks: []modelserver.Block{modelserver.Text(afterText)}},
	}}, &q, c)
	for i, want := range []string{lossyText, afterText} {
		c.reset()
		stop, err := prompt(t, deadline(t), w.s, fmt.Sprintf("Turn %d.", i+1))
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("turn %d: Prompt = %q, %v; want end_turn (from the Stop hook: the idle fallback is 10m)", i+1, stop, err)
		}
		if got := c.text(); got != want {
			t.Errorf("turn %d: reply = %q, want %q", i+1, got, want)
		}
		if n := w.userHookRuns(i + 1); n != i+1 {
			t.Errorf("after turn %d the user's own Stop hook ran %d times", i+1, n)
		}
	}
}
