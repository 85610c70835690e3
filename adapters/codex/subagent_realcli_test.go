package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// multiAgentConfig turns on Codex 0.169's sub-agents (multi-agent v2) for
// the offline model, whose catalogue entry selects none.
const multiAgentConfig = "\n[features]\nmulti_agent_v2 = true\n"

// subagentScenario is fixtures/scenarios/codex/subagent.json (a sub-agent
// that talks, runs an approved command and reports back, waited for),
// plus the sub-agents the cancel tests stop: one whose command waits for
// approval, one that sleeps.
func subagentScenario(t *testing.T) *modelserver.Scenario {
	sc, err := modelserver.Load(filepath.Join("..", "..", "fixtures", "scenarios", "codex", "subagent.json"))
	if err != nil {
		t.Fatal(err)
	}
	shell := func(cmd string, escalated bool) modelserver.Block {
		in := map[string]any{"command": cmd}
		if escalated {
			in["sandbox_permissions"], in["justification"] = "require_escalated", "make a file"
		}
		raw, _ := json.Marshal(in)
		return modelserver.Block{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell, Input: raw}
	}
	spawn := func(name, task string) modelserver.Block {
		return modelserver.ToolUse("", "spawn_agent", map[string]any{"task_name": name, "message": task, "fork_turns": "none"})
	}
	wait := modelserver.ToolUse("", "wait_agent", map[string]any{"timeout_ms": 10000})
	sc.Turns = append(sc.Turns,
		modelserver.Turn{Match: "Ask a slow helper", Blocks: []modelserver.Block{spawn("slow", "CHILD_SLOW: make a file")}},
		modelserver.Turn{Match: "CHILD_SLOW", Blocks: []modelserver.Block{shell("touch child-cancelled-file", true)}},
		modelserver.Turn{Match: `/root/slow"}`, Blocks: []modelserver.Block{wait}},
		modelserver.Turn{Match: "Ask a sleepy helper", Blocks: []modelserver.Block{spawn("sleepy", "CHILD_SLEEP: sleep")}},
		modelserver.Turn{Match: "CHILD_SLEEP", Blocks: []modelserver.Block{shell("sleep 613 && echo woke", false)}},
		modelserver.Turn{Match: `/root/sleepy"}`, Blocks: []modelserver.Block{wait}},
	)
	sc.Exhausted = &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Done.")}}
	return sc
}

// subagentCodex runs the pinned Codex with sub-agents on against the
// scenario; the adapter is closed at the end of the test.
func subagentCodex(t *testing.T) (*Adapter, *codexenv.Env) {
	bin := codexenv.Require(t)
	srv := modelserver.New(subagentScenario(t), modelserver.Options{})
	url := srv.Start()
	t.Cleanup(srv.Close)
	env, err := codexenv.New(t.TempDir(), url, multiAgentConfig)
	if err != nil {
		t.Fatal(err)
	}
	// Read-only: a sandboxed command of a sub-agent in the workspace-write
	// sandbox leaves an empty /tmp/.git behind (the sandbox's guard of a
	// writable root's .git, /tmp being one), which makes every temp dir
	// of the machine look like the inside of a git checkout to the tests
	// that follow. The sub-agents' commands ask for approval either way.
	a := New(Options{Path: bin, Env: env.Vars, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond,
		SpareCwd: env.Dir, NoSpare: true, Mode: ModeReadOnly})
	t.Cleanup(func() { a.Close() })
	return a, env
}

// newSubEditor is the editor of the sub-agent tests, with child sessions
// or without.
func newSubEditor(t *testing.T, children bool) *acptest.ChildEditor {
	return acptest.NewChildEditor(t, children, optAccept)
}

// frameText is the text of the frame's content block or of its tool
// contents.
func frameText(u map[string]any) string {
	if c, ok := u["content"].(map[string]any); ok {
		s, _ := c["text"].(string)
		return s
	}
	var b strings.Builder
	items, _ := u["content"].([]any)
	for _, it := range items {
		if c, ok := it.(map[string]any)["content"].(map[string]any); ok {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// announcedChild checks that a child is announced on the parent before any
// frame of it, with the task's name, and that no frame is of another
// session; it returns the child's id.
func announcedChild(t *testing.T, frames []acptest.ChildFrame, parent acp.SessionID, task string) acp.SessionID {
	t.Helper()
	var child acp.SessionID
	for i, f := range frames {
		switch {
		case f.Session == parent && f.U["sessionUpdate"] == "subagent_update" && child == "":
			child = acp.SessionID(f.U["sessionId"].(string))
			if f.U["title"] != task || f.U["description"] != "/root/"+task || f.U["capabilities"] == nil {
				t.Errorf("announcement %v, want the task name as title, its path, cancel", f.U)
			}
		case f.Session != parent && child == "":
			t.Fatalf("frame %d of %s before any announcement: %+v", i, f.Session, f)
		case f.Session != parent && f.Session != child:
			t.Errorf("frame %d of an unknown session %s", i, f.Session)
		}
	}
	if child == "" {
		t.Fatal("no child session was announced")
	}
	return child
}

func promptText(ctx context.Context, s acp.Session, text string) (acp.StopReason, error) {
	return s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// askHelper runs the scenario's first prompt (a sub-agent that reports
// back) to its end for an editor with or without child sessions; the
// session is closed at the end of the test.
func askHelper(t *testing.T, children bool) (acp.Session, *acptest.ChildEditor) {
	t.Helper()
	a, env := subagentCodex(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	e := newSubEditor(t, children)
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if stop, err := promptText(ctx, s, "Ask a helper what is in the project."); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	return s, e
}

// TestRealCodexSubagentChildSessions: for an editor that takes child
// sessions, Codex's sub-agent is a session of its own, announced on the
// parent before anything of it, with its thinking, text, tool call and
// approval, ending idle; the spawn call is the parent's, completed with
// the report, and the parent's text has nothing of the sub-agent's.
func TestRealCodexSubagentChildSessions(t *testing.T) {
	s, e := askHelper(t, true)
	frames := e.Frames()
	parent := s.ID()
	child := announcedChild(t, frames, parent, "lister")
	if got, want := strings.Join(acptest.SubagentStates(frames, parent, child), " "), "running requires_action running idle/end_turn"; got != want {
		t.Errorf("child states %q, want %q", got, want)
	}
	var parentText, childText, childThought, spawnEnd string
	var childCmd map[string]any
	var perms []acp.RequestPermissionRequest
	for _, f := range frames {
		if f.Perm != nil {
			perms = append(perms, *f.Perm)
			continue
		}
		kind, _ := f.U["sessionUpdate"].(string)
		switch {
		case f.Session == parent && kind == "agent_message_chunk":
			parentText += frameText(f.U)
		case f.Session == parent && f.U["toolCallId"] == "toolu_000000000000000000000001":
			spawnEnd = f.U["status"].(string) + ": " + frameText(f.U)
		case f.Session == child && kind == "agent_message_chunk":
			childText += frameText(f.U)
		case f.Session == child && kind == "agent_thought_chunk":
			childThought += frameText(f.U)
		case f.Session == child && strings.HasPrefix(kind, "tool_call"):
			childCmd = f.U
		}
	}
	if parentText != "Parent: asking a helper.The helper says the project is empty." {
		t.Errorf("the parent's text = %q", parentText)
	}
	if childText != "Child: listing files.CHILD_REPORT: the project is empty." || childThought != "Child thinking." {
		t.Errorf("the child's text = %q, thought = %q", childText, childThought)
	}
	if childCmd == nil || childCmd["status"] != "completed" || !strings.Contains(frameText(childCmd), "child-ran") {
		t.Errorf("the child's command = %v, want completed in the child session with its output", childCmd)
	}
	if len(perms) != 1 || perms[0].SessionID != child {
		t.Errorf("permission requests = %+v, want one of the child %s", perms, child)
	}
	if spawnEnd != "completed: CHILD_REPORT: the project is empty." {
		t.Errorf("the spawn call ended %q, want completed with the report", spawnEnd)
	}
}

// TestRealCodexSubagentUnderCall: for an editor without child sessions,
// the sub-agent's work shows under the spawn call: its text as the call's
// content while it runs, its command and approval tied to the call by
// _meta, its report as the call's content at the end; nothing of it is the
// parent's text, and no other session id is used.
func TestRealCodexSubagentUnderCall(t *testing.T) {
	s, e := askHelper(t, false)
	const spawn = "toolu_000000000000000000000001"
	var parentText string
	var spawnStates []string
	var cmdParents []string
	for _, f := range e.Frames() {
		if f.Session != s.ID() {
			t.Errorf("a frame of another session %s: %+v", f.Session, f)
		}
		if f.Perm != nil {
			if p := parentOf(f.Perm.ToolCall.Meta); p != spawn {
				t.Errorf("the child's permission request names parent %q, want %s", p, spawn)
			}
			continue
		}
		switch id, _ := f.U["toolCallId"].(string); {
		case f.U["sessionUpdate"] == "subagent_update":
			t.Errorf("a subagent_update for an editor without child sessions: %v", f.U)
		case f.U["sessionUpdate"] == "agent_message_chunk":
			parentText += frameText(f.U)
		case id == spawn:
			st, _ := f.U["status"].(string)
			spawnStates = append(spawnStates, st+": "+frameText(f.U))
		case id != "" && strings.Contains(frameText(f.U)+mustJSON(f.U["rawInput"]), "child-ran"):
			cmdParents = append(cmdParents, parentOf(f.U["_meta"]))
		}
	}
	if parentText != "Parent: asking a helper.The helper says the project is empty." {
		t.Errorf("the parent's text = %q", parentText)
	}
	joined := strings.Join(spawnStates, " | ")
	if len(spawnStates) < 3 || !strings.HasPrefix(joined, "in_progress: ") || !strings.Contains(joined, "in_progress: Child: listing files.") ||
		spawnStates[len(spawnStates)-1] != "completed: CHILD_REPORT: the project is empty." {
		t.Errorf("the spawn call went %q; want in progress with the child's text, then completed with the report", joined)
	}
	if len(cmdParents) < 2 || strings.Count(strings.Join(cmdParents, ","), spawn) != len(cmdParents) {
		t.Errorf("the child's command updates name parents %q, want each %s", cmdParents, spawn)
	}
}

// TestRealCodexSubagentCancelChild cancels the child session while its
// approval waits: turn/interrupt of the sub-agent's turn stops it alone
// (its question is withdrawn, its command never runs), the child ends
// cancelled, and the parent's turn goes on to its own end.
func TestRealCodexSubagentCancelChild(t *testing.T) {
	a, env := subagentCodex(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	e := newSubEditor(t, true)
	var s acp.Session
	withdrawn := make(chan bool, 1)
	e.Ask = func(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if !s.(acp.ChildCanceller).CancelChild(r.SessionID) {
			t.Errorf("CancelChild(%s) = false for a running child", r.SessionID)
		}
		select {
		case <-ctx.Done():
			withdrawn <- true
		case <-time.After(30 * time.Second):
			withdrawn <- false
		}
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}
	}
	var err error
	s, err = a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, e)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if stop, err := promptText(ctx, s, "Ask a slow helper to make a file."); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v: cancelling a child must not cancel the parent", stop, err)
	}
	if !<-withdrawn {
		t.Error("the child's permission request was not withdrawn after its cancel")
	}
	frames := e.Frames()
	child := announcedChild(t, frames, s.ID(), "slow")
	if st := acptest.SubagentStates(frames, s.ID(), child); len(st) == 0 || st[len(st)-1] != "idle/cancelled" {
		t.Errorf("child states %q, want the last idle/cancelled", st)
	}
	if s.(acp.ChildCanceller).CancelChild(child) {
		t.Error("CancelChild of an ended child = true")
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "child-cancelled-file")); err == nil {
		t.Error("the cancelled child's command ran")
	}
}

// TestRealCodexSubagentNothingLeft stops a session's turn while its
// sub-agent runs a long command, in each way a turn can be stopped: the
// child session ends (cancelled, or with no stop reason after a crash,
// whose cause is not the child's) and no process of the sub-agent is
// left running.
func TestRealCodexSubagentNothingLeft(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stop  func(a *Adapter, s acp.Session, cancel context.CancelFunc)
		state string // the child's last state
		err   bool   // Prompt fails
	}{
		{"cancel", func(_ *Adapter, _ acp.Session, cancel context.CancelFunc) { cancel() }, "idle/cancelled", false},
		{"close", func(_ *Adapter, s acp.Session, _ context.CancelFunc) { s.Close() }, "idle/cancelled", false},
		{"crash", func(a *Adapter, _ acp.Session, _ context.CancelFunc) {
			a.mu.Lock()
			pid := a.srv.p.Pid()
			a.mu.Unlock()
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}, "idle", true},
		{"exit", func(a *Adapter, _ acp.Session, _ context.CancelFunc) { a.Close() }, "idle", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, env := subagentCodex(t)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			pctx, pcancel := context.WithCancel(ctx)
			defer pcancel()
			e := newSubEditor(t, true)
			sleeping := make(chan struct{})
			var once sync.Once
			e.OnUpdate = func(session acp.SessionID, u map[string]any) {
				if title, _ := u["title"].(string); u["sessionUpdate"] == "tool_call" && strings.Contains(title, "sleep 613") {
					once.Do(func() { close(sleeping) })
				}
			}
			s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, e)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			go func() {
				select {
				case <-sleeping:
					// The command is announced as it starts; let it start.
					// Codex 0.169 loses a command interrupted while it is
					// still being started (its item ends failed, the process
					// runs on until the app-server stops, and no background
					// terminal lists it), so the stop waits a second more.
					for i := 0; i < 100 && len(sleepers(env)) == 0; i++ {
						time.Sleep(50 * time.Millisecond)
					}
					time.Sleep(time.Second)
					tt.stop(a, s, pcancel)
				case <-pctx.Done():
				}
			}()
			stop, err := promptText(pctx, s, "Ask a sleepy helper to sleep.")
			if tt.err != (err != nil) || (!tt.err && stop != acp.StopReasonCancelled) {
				t.Errorf("Prompt = %q, %v; want cancelled, or an error: %v", stop, err, tt.err)
			}
			frames := e.Frames()
			child := announcedChild(t, frames, s.ID(), "sleepy")
			if st := acptest.SubagentStates(frames, s.ID(), child); len(st) == 0 || st[len(st)-1] != tt.state {
				t.Errorf("child states %q, want the last %s", st, tt.state)
			}
			deadline := time.Now().Add(15 * time.Second)
			for len(sleepers(env)) > 0 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if left := sleepers(env); len(left) > 0 {
				t.Errorf("the sub-agent's command is still running: %q", left)
			}
		})
	}
}

// sleepers are the run's processes that run the sleepy sub-agent's
// command.
func sleepers(env *codexenv.Env) []string {
	var out []string
	for _, p := range env.Processes(0) {
		if strings.Contains(p, "sleep 613") {
			out = append(out, p[:min(len(p), 60)])
		}
	}
	return out
}
