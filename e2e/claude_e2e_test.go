//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	sdk "github.com/coder/acp-go-sdk"
)

// e2eTimeout bounds each end-to-end test; a turn of the real CLI against
// the local model server takes well under a second.
const e2eTimeout = 90 * time.Second

// cancelBound is the generous limit on the time from session/cancel to the
// prompt's answer asserted here (the target, 200 ms, is the benchmark's).
const cancelBound = 2 * time.Second

// TestClaudeE2E runs `acpbridge claude` on the real Claude Code CLI, driven
// by the Go ACP SDK, against the scripted model server: one isolated world
// (HOME, CLAUDE_CONFIG_DIR, project, model server) per subtest, all in
// parallel. Every frame the bridge writes is validated against the ACP
// schema, and after each bridge exits no process it started may survive.
func TestClaudeE2E(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"text", e2eTextTurn},
		{"thinking", e2eThinking},
		{"bash allow", e2eBashAllow},
		{"bash reject", e2eBashReject},
		{"bash allow always", e2eBashAllowAlways},
		{"write and edit", e2eWriteEdit},
		{"plan mode", e2ePlanMode},
		{"set mode", e2eSetMode},
		{"cancel while streaming", e2eCancelStreaming},
		{"cancel while permission pending", e2eCancelPermission},
		{"steering", e2eSteering},
		{"client MCP server", e2eMCPServer},
		{"CLI killed mid-turn", e2eCLIKilled},
		{"load after restart", e2eLoadAfterRestart},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t)
		})
	}
}

// e2eSession starts a world for scenario, a bridge in it and a session.
func e2eSession(t *testing.T, scenario string) (context.Context, *e2eWorld, *e2eBridge, sdk.SessionId) {
	w := newE2EWorld(t, scenario)
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	t.Cleanup(cancel)
	b := w.start()
	sid := b.newSession(ctx).SessionId
	b.waitStarted(ctx)
	return ctx, w, b, sid
}

func e2eTextTurn(t *testing.T) {
	w := newE2EWorld(t, "text")
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	defer cancel()
	b := w.start()

	caps := b.init.AgentCapabilities
	if b.init.ProtocolVersion != 1 || b.init.AgentInfo == nil || b.init.AgentInfo.Name != "acpbridge" {
		t.Errorf("initialize: protocol %d, agent %+v", b.init.ProtocolVersion, b.init.AgentInfo)
	}
	if !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext || !caps.McpCapabilities.Http || !caps.McpCapabilities.Sse {
		t.Errorf("initialize: capabilities %+v", caps)
	}
	start := time.Now()
	sess := b.newSession(ctx)
	t.Logf("session/new answered in %v", time.Since(start))
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" {
		t.Errorf("session/new modes = %+v, want current mode default", sess.Modes)
	}
	if got := e2eConfigValue(sess.ConfigOptions, "mode"); got != "default" {
		t.Errorf("session/new mode option = %q, want default", got)
	}
	if got := e2eConfigValue(sess.ConfigOptions, "model"); got == "" {
		t.Error("session/new has no model option")
	}
	// The cold path: the prompt goes out at once, while the CLI starts.
	b.mustPrompt(ctx, sess.SessionId, "Say hello in one short sentence.", sdk.StopReasonEndTurn)
	got := b.client.Updates()
	if txt, want := acpclient.AgentText(got), w.said("text", 0); txt != want {
		t.Errorf("agent text = %q, want %q", txt, want)
	}
	// A chunk per delta, but deltas the bridge reads in one batch go out
	// merged.
	if n, deltas := e2eCount(got, e2eIsText), w.sc.Turns[0].Blocks[0].Deltas; n < 1 || n > deltas {
		t.Errorf("%d agent_message_chunk updates for %d deltas", n, deltas)
	}
	if n := e2eCount(got, func(u sdk.SessionUpdate) bool { return u.UsageUpdate != nil }); n == 0 {
		t.Error("no usage_update")
	}
	// The CLI listed its slash commands when it started.
	if n := e2eCount(got, func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil }); n != 1 {
		t.Errorf("%d available_commands_update, want 1", n)
	}
	for _, u := range got {
		if u.AvailableCommandsUpdate == nil {
			continue
		}
		var names []string
		for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
			names = append(names, c.Name)
		}
		if !slices.Contains(names, "compact") || slices.Contains(names, "login") {
			t.Errorf("available commands %v: want compact, and no login", names)
		}
	}
	if reqs := w.srv.MainRequests(); len(reqs) != 1 {
		t.Errorf("model server saw %d main requests, want 1", len(reqs))
	}
}

func e2eThinking(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "thinking")
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Is 391 a prime number?", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)
	if th, want := acpclient.ThoughtText(got), w.said("thinking", 0); th != want {
		t.Errorf("thought = %q, want %q", th, want)
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 0); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
	blocks := w.sc.Turns[0].Blocks
	if n, m := e2eCount(got, e2eIsThought), e2eCount(got, e2eIsText); n < 1 || n > blocks[0].Deltas || m < 1 || m > blocks[1].Deltas {
		t.Errorf("%d thought chunks and %d text chunks for %d and %d deltas (one per delta, or fewer merged)", n, m, blocks[0].Deltas, blocks[1].Deltas)
	}
	firstText := slices.IndexFunc(got, e2eIsText)
	if firstText < 0 || slices.ContainsFunc(got[firstText:], e2eIsThought) {
		t.Error("thought chunks and text chunks interleave: the thinking block comes first")
	}
}

// e2eAsked returns every permission request the editor got, and ends the
// test unless there are want of them; why explains the number.
func e2eAsked(t *testing.T, b *e2eBridge, want int, why string) []sdk.RequestPermissionRequest {
	t.Helper()
	asked := b.client.Asked()
	if len(asked) != want {
		t.Fatalf("%d permission requests, want %d%s", len(asked), want, why)
	}
	return asked
}

// e2eWantPermission checks a permission request: the tool call it is about,
// its title and kind, and the four standard options.
func e2eWantPermission(t *testing.T, r sdk.RequestPermissionRequest, id, title string, kind sdk.ToolKind) {
	t.Helper()
	tc := r.ToolCall
	if string(tc.ToolCallId) != id || tc.Title == nil || *tc.Title != title || tc.Kind == nil || *tc.Kind != kind {
		t.Errorf("permission asked for %s %q (%v), want %s %q (%s)", tc.ToolCallId, e2eStr(tc.Title), tc.Kind, id, title, kind)
	}
	var kinds []sdk.PermissionOptionKind
	for _, o := range r.Options {
		kinds = append(kinds, o.Kind)
	}
	want := []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways,
		sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("permission options %v, want %v", kinds, want)
	}
}

// e2eWantTool checks the final state of a tool call.
func e2eWantTool(t *testing.T, us []sdk.SessionUpdate, id, title string, kind sdk.ToolKind, status sdk.ToolCallStatus) *e2eToolCall {
	t.Helper()
	tc := e2eFindTool(us, id)
	if tc == nil {
		t.Fatalf("no tool call %s among %d updates", id, len(us))
	}
	if tc.title != title || tc.kind != kind || tc.status() != status {
		t.Errorf("tool call %s: %q (%s) %v, want %q (%s) ending %s", id, tc.title, tc.kind, tc.statuses, title, kind, status)
	}
	// Announced as pending, finished once: nothing follows the end.
	if len(tc.statuses) < 2 || tc.statuses[0] != sdk.ToolCallStatusPending ||
		slices.ContainsFunc(tc.statuses[:len(tc.statuses)-1], func(s sdk.ToolCallStatus) bool {
			return s == sdk.ToolCallStatusCompleted || s == sdk.ToolCallStatusFailed
		}) {
		t.Errorf("tool call %s went through %v, want pending first and one final status", id, tc.statuses)
	}
	return tc
}

func e2eBashAllow(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "bash_allow")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Create a build directory and show me what is in the project.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	asked := e2eAsked(t, b, 1, "")
	e2eWantPermission(t, asked[0], "toolu_bash_allow_01", "mkdir -p build && ls", sdk.ToolKindExecute)
	tc := e2eWantTool(t, got, "toolu_bash_allow_01", "mkdir -p build && ls", sdk.ToolKindExecute, sdk.ToolCallStatusCompleted)
	if out := e2eContentText(tc.content); !slices.Contains(out, "```console\nREADME.md\nbuild\nmain.go\n```") {
		t.Errorf("command output shown as %q", out)
	}
	if in, _ := json.Marshal(tc.rawInput); string(in) != `{"command":"mkdir -p build \u0026\u0026 ls","description":"Create build directory and list files"}` {
		t.Errorf("rawInput = %s", in)
	}
	if out, ok := tc.rawOutput.(map[string]any); !ok || out["stdout"] != "README.md\nbuild\nmain.go" || out["stderr"] != "" {
		t.Errorf("rawOutput = %v, want the CLI's result with the command's stdout", tc.rawOutput)
	}
	if fi, err := os.Stat(filepath.Join(w.proj, "build")); err != nil || !fi.IsDir() {
		t.Errorf("the command did not run: %v", err)
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 0, 1); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
}

func e2eBashReject(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "bash_reject")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindRejectOnce))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Clean up the build directory.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	asked := e2eAsked(t, b, 1, "")
	e2eWantPermission(t, asked[0], "toolu_e2e_reject", "rm -rf build", sdk.ToolKindExecute)
	tc := e2eWantTool(t, got, "toolu_e2e_reject", "rm -rf build", sdk.ToolKindExecute, sdk.ToolCallStatusFailed)
	if c := e2eContentText(tc.content); len(c) != 1 || !strings.Contains(c[0], "refused permission") {
		t.Errorf("the rejected call shows %q, want the refusal", c)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "build", "output.txt")); err != nil {
		t.Errorf("the rejected command ran: %v", err)
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 1); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
	// The turn went on: the model was told, with a failed tool result.
	reqs := w.mainRequestsText()
	if len(reqs) != 2 || !strings.Contains(reqs[1], `"tool_use_id":"toolu_e2e_reject"`) || !strings.Contains(reqs[1], `"is_error":true`) {
		t.Errorf("the model was not given the refusal as a failed tool result: %d requests, last %s", len(reqs), reqs[len(reqs)-1])
	}
}

func e2eBashAllowAlways(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "bash_always")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowAlways))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Create the two stamp files, and make sure they exist.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	asked := e2eAsked(t, b, 1, ": the second identical command must not ask")
	e2eWantPermission(t, asked[0], "toolu_e2e_always_1", "touch stamp-a stamp-b", sdk.ToolKindExecute)
	e2eWantTool(t, got, "toolu_e2e_always_1", "touch stamp-a stamp-b", sdk.ToolKindExecute, sdk.ToolCallStatusCompleted)
	e2eWantTool(t, got, "toolu_e2e_always_2", "touch stamp-a stamp-b", sdk.ToolKindExecute, sdk.ToolCallStatusCompleted)
	for _, f := range []string{"stamp-a", "stamp-b"} {
		if _, err := os.Stat(filepath.Join(w.proj, f)); err != nil {
			t.Errorf("the command did not run: %v", err)
		}
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 2); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
}

func e2eWriteEdit(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "edit_write")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Write a notes.md with a TODO list, then mark the first item done.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	path := filepath.Join(w.proj, "notes.md")
	const created = "# Notes\n\n- [ ] set up the project\n- [ ] write the tests\n"
	asked := e2eAsked(t, b, 2, " (Write, Edit)")
	// The questions show what will change.
	if d := e2eDiffs(asked[0].ToolCall.Content); !reflect.DeepEqual(d, []e2eDiff{{path: path, new: created, noOld: true}}) {
		t.Errorf("Write permission shows %+v", d)
	}
	if d := e2eDiffs(asked[1].ToolCall.Content); !reflect.DeepEqual(d, []e2eDiff{{path: path, old: "- [ ] set up the project", new: "- [x] set up the project"}}) {
		t.Errorf("Edit permission shows %+v", d)
	}

	wr := e2eWantTool(t, got, "toolu_write_01", "Write notes.md", sdk.ToolKindEdit, sdk.ToolCallStatusCompleted)
	if d := e2eDiffs(wr.content); !reflect.DeepEqual(d, []e2eDiff{{path: path, new: created, noOld: true}}) {
		t.Errorf("Write diff = %+v", d)
	}
	ed := e2eWantTool(t, got, "toolu_edit_01", "Edit notes.md", sdk.ToolKindEdit, sdk.ToolCallStatusCompleted)
	// The finished edit shows the CLI's patch hunk, with its context lines.
	wantEdit := []e2eDiff{{path: path,
		old: "# Notes\n\n- [ ] set up the project\n- [ ] write the tests",
		new: "# Notes\n\n- [x] set up the project\n- [ ] write the tests"}}
	if d := e2eDiffs(ed.content); !reflect.DeepEqual(d, wantEdit) {
		t.Errorf("Edit diff = %+v, want %+v", d, wantEdit)
	}
	for _, tc := range []*e2eToolCall{wr, ed} {
		if len(tc.locations) == 0 || tc.locations[0].Path != path {
			t.Errorf("%s locations = %+v, want %s", tc.id, tc.locations, path)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "# Notes\n\n- [x] set up the project\n- [ ] write the tests\n" {
		t.Errorf("notes.md = %q, %v", data, err)
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 0, 1, 2); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
}

func e2ePlanMode(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "plan_mode")
	if _, err := b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatalf("session/set_mode plan: %v", err)
	}
	// "Yes, and auto-accept edits" is the allow_always choice.
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowAlways))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Plan how to greet, then do it.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	const plan = "# Plan\n\n1. Write hello.txt\n"
	asked := e2eAsked(t, b, 1, " (leaving plan mode; the Write runs in acceptEdits)")
	q := asked[0]
	if string(q.ToolCall.ToolCallId) != "toolu_e2e_exitplan" || q.ToolCall.Kind == nil || *q.ToolCall.Kind != sdk.ToolKindSwitchMode {
		t.Errorf("leaving plan mode asked about %s (%v)", q.ToolCall.ToolCallId, q.ToolCall.Kind)
	}
	var opts []string
	for _, o := range q.Options {
		opts = append(opts, fmt.Sprintf("%s/%s", o.OptionId, o.Kind))
	}
	if want := []string{"acceptEdits/allow_always", "default/allow_once", "plan/reject_once"}; !reflect.DeepEqual(opts, want) {
		t.Errorf("how to continue: options %v, want %v", opts, want)
	}
	if q.ToolCall.Title == nil || *q.ToolCall.Title != "Ready to code?" {
		t.Errorf("leaving plan mode asked %q", e2eStr(q.ToolCall.Title))
	}
	// The CLI asks with an empty input; the question refers to the tool
	// call, which shows the plan.
	if c := e2eContentText(q.ToolCall.Content); len(c) != 0 && !reflect.DeepEqual(c, []string{plan}) {
		t.Errorf("the question shows %q, not the plan", c)
	}
	if m := e2eModeUpdates(got); !reflect.DeepEqual(m, []string{"acceptEdits"}) {
		t.Errorf("current_mode_update during the turn: %v, want [acceptEdits]", m)
	}
	if v := e2eConfigValues(got, "mode"); !reflect.DeepEqual(v, []string{"acceptEdits"}) {
		t.Errorf("config_option_update mode values during the turn: %v, want [acceptEdits]", v)
	}
	exit := e2eWantTool(t, got, "toolu_e2e_exitplan", "Exited Plan Mode", sdk.ToolKindSwitchMode, sdk.ToolCallStatusCompleted)
	if c := e2eContentText(exit.content); !reflect.DeepEqual(c, []string{plan}) {
		t.Errorf("the ExitPlanMode tool call shows %q, want the plan", c)
	}
	e2eWantTool(t, got, "toolu_e2e_plan_write", "Write hello.txt", sdk.ToolKindEdit, sdk.ToolCallStatusCompleted)
	if data, err := os.ReadFile(filepath.Join(w.proj, "hello.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("hello.txt = %q, %v", data, err)
	}
}

func e2eSetMode(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "set_mode")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))

	mark, _ := b.client.Mark()
	if _, err := b.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "acceptEdits"}); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	got := b.client.UpdatesSince(mark)
	if m := e2eModeUpdates(got); !reflect.DeepEqual(m, []string{"acceptEdits"}) {
		t.Errorf("after session/set_mode: current_mode_update %v, want [acceptEdits]", m)
	}
	if v := e2eConfigValues(got, "mode"); !reflect.DeepEqual(v, []string{"acceptEdits"}) {
		t.Errorf("after session/set_mode: config_option_update mode values %v, want [acceptEdits]", v)
	}
	b.mustPrompt(ctx, sid, "Create the first file.", sdk.StopReasonEndTurn)
	if n := len(b.client.Asked()); n != 0 {
		t.Errorf("acceptEdits: the Write asked %d times", n)
	}
	if _, err := os.Stat(filepath.Join(w.proj, "first.txt")); err != nil {
		t.Error(err)
	}

	mark, _ = b.client.Mark()
	res, err := b.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "mode", Value: "default"}})
	if err != nil {
		t.Fatalf("session/set_config_option: %v", err)
	}
	if v := e2eConfigValue(res.ConfigOptions, "mode"); v != "default" {
		t.Errorf("session/set_config_option answered mode %q, want default", v)
	}
	if m := e2eModeUpdates(b.client.UpdatesSince(mark)); !reflect.DeepEqual(m, []string{"default"}) {
		t.Errorf("after session/set_config_option: current_mode_update %v, want [default]", m)
	}
	mark, _ = b.client.Mark()
	b.mustPrompt(ctx, sid, "Create the second file.", sdk.StopReasonEndTurn)
	asked := b.client.Asked()
	if len(asked) != 1 || string(asked[0].ToolCall.ToolCallId) != "toolu_e2e_mode_2" {
		t.Errorf("default mode: %d permission requests, want 1 for the second Write", len(asked))
	}
	e2eWantTool(t, b.client.UpdatesSince(mark), "toolu_e2e_mode_2", "Write second.txt", sdk.ToolKindEdit, sdk.ToolCallStatusCompleted)
	if v := w.srv.Remaining(); v != 0 {
		t.Errorf("%d scripted turns unused", v)
	}
}

// e2eCancel sends session/cancel and returns how long the pending prompt
// took to answer after it.
func e2eCancel(t *testing.T, ctx context.Context, b *e2eBridge, sid sdk.SessionId, answered <-chan e2ePromptResult) (e2ePromptResult, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := b.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatalf("session/cancel: %v", err)
	}
	var r e2ePromptResult
	select {
	case r = <-answered:
	case <-ctx.Done():
		t.Fatal("the cancelled prompt was never answered")
	}
	return r, time.Since(start)
}

type e2ePromptResult struct {
	res sdk.PromptResponse
	err error
}

// e2ePromptAsync starts a prompt and returns where its answer arrives.
func e2ePromptAsync(ctx context.Context, b *e2eBridge, sid sdk.SessionId, text string) <-chan e2ePromptResult {
	ch := make(chan e2ePromptResult, 1)
	go func() {
		res, err := b.prompt(ctx, sid, text)
		ch <- e2ePromptResult{res, err}
	}()
	return ch
}

func e2eCancelStreaming(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "interrupt_streaming")
	mark, _ := b.client.Mark()
	answered := e2ePromptAsync(ctx, b, sid, "Explain the project layout in detail.")
	err := b.client.WaitFor(ctx, "three streamed chunks", func() bool { return b.client.Count(mark, e2eIsText) >= 3 })
	if err != nil {
		t.Fatal(err)
	}
	r, took := e2eCancel(t, ctx, b, sid, answered)
	t.Logf("cancel while streaming: session/cancel to answer took %v", took)
	if r.err != nil || r.res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt: %+v, %v; want stopReason cancelled", r.res, r.err)
	}
	if took > cancelBound {
		t.Errorf("cancel took %v, more than %v", took, cancelBound)
	}
	full := w.said("text", 0)
	if txt := acpclient.AgentText(b.client.UpdatesSince(mark)); len(txt) == 0 || len(txt) >= len(full) || !strings.HasPrefix(full, txt) {
		t.Errorf("the cancelled turn streamed %q: want a proper prefix of the reply", txt)
	}
	mark, _ = b.client.Mark()
	b.mustPrompt(ctx, sid, "Never mind. Just say OK.", sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b.client.UpdatesSince(mark)), w.said("text", 1); txt != want {
		t.Errorf("the turn after the cancel said %q, want %q", txt, want)
	}
}

func e2eCancelPermission(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "cancel_permission")
	asked := make(chan struct{}, 1)
	// This editor never answers: it waits until the bridge withdraws the
	// question (or the test ends).
	b.client.SetPermit(func(pctx context.Context, _ sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		asked <- struct{}{}
		select {
		case <-pctx.Done():
		case <-ctx.Done():
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	})
	mark, _ := b.client.Mark()
	answered := e2ePromptAsync(ctx, b, sid, "Create the marker file.")
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("no permission request")
	}
	r, took := e2eCancel(t, ctx, b, sid, answered)
	t.Logf("cancel while a permission is pending: session/cancel to answer took %v", took)
	if r.err != nil || r.res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt: %+v, %v; want stopReason cancelled", r.res, r.err)
	}
	if took > cancelBound {
		t.Errorf("cancel took %v, more than %v", took, cancelBound)
	}
	wctx, wcancel := context.WithTimeout(ctx, cancelBound)
	defer wcancel()
	if err := b.client.WaitFor(wctx, "the permission request to be withdrawn", func() bool { return b.client.Withdrawn() == 1 }); err != nil {
		t.Error(err)
	}
	e2eWantTool(t, b.client.UpdatesSince(mark), "toolu_e2e_pending", "touch cancelled-marker", sdk.ToolKindExecute, sdk.ToolCallStatusFailed)
	if _, err := os.Stat(filepath.Join(w.proj, "cancelled-marker")); err == nil {
		t.Error("the command ran although its permission was never given")
	}
	b.client.SetPermit(nil)
	mark, _ = b.client.Mark()
	b.mustPrompt(ctx, sid, "Never mind. Just say OK.", sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b.client.UpdatesSince(mark)), w.said("text", 1); txt != want {
		t.Errorf("the turn after the cancel said %q, want %q", txt, want)
	}
}

func e2eMCPServer(t *testing.T) {
	w := newE2EWorld(t, "mcp_tool")
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	defer cancel()
	server := filepath.Join(w.root, "mcpserver")
	build := exec.CommandContext(ctx, "go", "build", "-o", server, "../cmd/dev/mcpserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/dev/mcpserver: %v\n%s", err, out)
	}
	calls := filepath.Join(w.root, "mcp-calls.jsonl")
	b := w.start()
	sid := b.newSession(ctx, sdk.McpServer{Stdio: &sdk.McpServerStdio{
		Name: "e2e", Command: server, Args: []string{"-name", "e2e", "-calls", calls}, Env: []sdk.EnvVariable{}}}).SessionId
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	mark, _ := b.client.Mark()
	b.mustPrompt(ctx, sid, "Add 2 and 40 with the e2e server.", sdk.StopReasonEndTurn)
	got := b.client.UpdatesSince(mark)

	asked := e2eAsked(t, b, 1, "")
	e2eWantPermission(t, asked[0], "toolu_e2e_mcp", "add (e2e)", sdk.ToolKindOther)
	tc := e2eWantTool(t, got, "toolu_e2e_mcp", "add (e2e)", sdk.ToolKindOther, sdk.ToolCallStatusCompleted)
	if out := e2eContentText(tc.content); !reflect.DeepEqual(out, []string{"sum: 42"}) {
		t.Errorf("tool result shown as %q, want the server's answer", out)
	}
	if in, _ := json.Marshal(tc.rawInput); string(in) != `{"a":2,"b":40}` {
		t.Errorf("rawInput = %s", in)
	}
	data, err := os.ReadFile(calls)
	if err != nil || strings.TrimSpace(string(data)) != `{"tool":"add","arguments":{"a":2,"b":40},"result":"sum: 42","isError":false}` {
		t.Errorf("the MCP server saw %q (%v), want one add call", data, err)
	}
	if txt, want := acpclient.AgentText(got), w.said("text", 1); txt != want {
		t.Errorf("text = %q, want %q", txt, want)
	}
}

func e2eCLIKilled(t *testing.T) {
	w := newE2EWorld(t, "cli_killed")
	// A wrapper that says something on stderr, then becomes the CLI: the
	// error must carry the tail of the CLI's stderr.
	wrapper := filepath.Join(w.root, "claude-wrapper")
	script := fmt.Sprintf("#!/bin/sh\necho \"e2e wrapper: starting the CLI as pid $$\" >&2\nexec %q \"$@\"\n", w.cli)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.claudePath = wrapper
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	defer cancel()
	b := w.start()
	sid := b.newSession(ctx).SessionId

	mark, _ := b.client.Mark()
	answered := e2ePromptAsync(ctx, b, sid, "Tell me a long story.")
	if err := b.client.WaitFor(ctx, "streamed chunks", func() bool { return b.client.Count(mark, e2eIsText) >= 3 }); err != nil {
		t.Fatal(err)
	}
	b.Track()
	pids := b.cliPids()
	if len(pids) != 1 {
		t.Fatalf("bridge children %v, want the one CLI", pids)
	}
	victim := pids[0]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var r e2ePromptResult
	select {
	case r = <-answered:
	case <-ctx.Done():
		t.Fatal("the prompt was not answered after the CLI died")
	}
	re, ok := e2eRPCError(r.err)
	if !ok {
		t.Fatalf("prompt after the CLI died: %+v, %v; want a JSON-RPC error", r.res, r.err)
	}
	t.Logf("error: %d %s", re.Code, re.Message)
	marker := fmt.Sprintf("e2e wrapper: starting the CLI as pid %d", victim)
	if re.Code != -32603 || !strings.Contains(re.Message, "killed") || !strings.Contains(re.Message, marker) {
		t.Errorf("error %d %q: want -32603 saying the CLI was killed, with its stderr tail (%q)", re.Code, re.Message, marker)
	}

	mark, _ = b.client.Mark()
	b.mustPrompt(ctx, sid, "Are you still there?", sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b.client.UpdatesSince(mark)), w.said("text", 1); txt != want {
		t.Errorf("text after the restart = %q, want %q", txt, want)
	}
	pids = b.cliPids()
	if len(pids) != 1 || pids[0] == victim || !slices.Contains(e2eCmdline(pids[0]), "--resume="+string(sid)) {
		var args [][]string
		for _, p := range pids {
			args = append(args, e2eCmdline(p))
		}
		t.Errorf("after the restart the bridge runs %q, want one new CLI started with --resume=%s", args, sid)
	}
	reqs := w.mainRequestsText()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, "Tell me a long story.") {
		t.Errorf("the resumed CLI did not send the earlier conversation: %s", last)
	}
}

func e2eLoadAfterRestart(t *testing.T) {
	w := newE2EWorld(t, "load")
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	defer cancel()
	b := w.start()
	if !b.init.AgentCapabilities.LoadSession {
		t.Skip("acpbridge claude does not advertise loadSession yet (initialize agentCapabilities.loadSession is false)")
	}
	sid := b.newSession(ctx).SessionId
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	const first = "Please remember the code word pelican."
	b.mustPrompt(ctx, sid, first, sdk.StopReasonEndTurn)
	b.stop()

	b2 := w.start()
	_, err := b2.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "00000000-0000-4000-8000-000000000000", Cwd: w.proj, McpServers: []sdk.McpServer{}})
	if re, ok := e2eRPCError(err); !ok || re.Code != -32002 {
		t.Errorf("session/load of an unknown id: %v, want error -32002 (resource not found)", err)
	}
	loaded, err := b2.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sid, Cwd: w.proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if loaded.Modes == nil || loaded.Modes.CurrentModeId != "default" || e2eConfigValue(loaded.ConfigOptions, "mode") != "default" {
		t.Errorf("session/load answered modes %+v, options %+v", loaded.Modes, loaded.ConfigOptions)
	}
	replay := b2.client.Updates()
	if txt := acpclient.UserText(replay); txt != first {
		t.Errorf("replayed user text %q, want %q", txt, first)
	}
	if th, want := acpclient.ThoughtText(replay), w.said("thinking", 0); th != want {
		t.Errorf("replayed thought %q, want %q", th, want)
	}
	if txt, want := acpclient.AgentText(replay), w.said("text", 0, 1); txt != want {
		t.Errorf("replayed agent text %q, want %q", txt, want)
	}
	e2eWantTool(t, replay, "toolu_e2e_load_echo", "echo pelican > codeword.txt", sdk.ToolKindExecute, sdk.ToolCallStatusCompleted)

	mark, _ := b2.client.Mark()
	b2.mustPrompt(ctx, sid, "What was the code word?", sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b2.client.UpdatesSince(mark)), w.said("text", 2); txt != want {
		t.Errorf("text after load = %q, want %q", txt, want)
	}
	reqs := w.mainRequestsText()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, first) || !strings.Contains(last, w.said("text", 1)) {
		t.Errorf("the loaded session did not carry the conversation to the model: %s", last)
	}
}

// e2eCount counts the updates that match.
func e2eCount(us []sdk.SessionUpdate, match func(sdk.SessionUpdate) bool) int {
	n := 0
	for _, u := range us {
		if match(u) {
			n++
		}
	}
	return n
}

func e2eStr(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
