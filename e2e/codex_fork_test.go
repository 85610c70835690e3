//go:build linux

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestCodexFork forks a Codex thread after a turn (unstable session/fork,
// thread/fork), through the built binary and the real Codex, offline: a
// turn on the fork sends the model the earlier conversation; a turn on the
// original afterwards does not send the fork's; session/list shows both; a
// fork of an unknown id is resource-not-found; every frame is checked
// against the pinned schemas; after the bridge exits nothing Codex started
// runs.
func TestCodexFork(t *testing.T) {
	bin := codexenv.Require(t)
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "code word", Blocks: []modelserver.Block{modelserver.Text("I will remember the code word.")}},
		{Match: "On the fork", Blocks: []modelserver.Block{modelserver.Text("The fork remembers pelican.")}},
		{Match: "On the original", Blocks: []modelserver.Block{modelserver.Text("The original goes on.")}},
	}}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env.Vars {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	b := startBridge(t, "codex", "--codex-path", bin, "--mode", "read-only")
	cl := acpclient.New(sdk.PermissionOptionKindRejectOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.AgentCapabilities.SessionCapabilities.Fork == nil {
		t.Fatalf("initialize does not advertise sessionCapabilities.fork: %+v", init.AgentCapabilities.SessionCapabilities)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: env.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	sid := sess.SessionId
	turn := func(id sdk.SessionId, text, want string) string {
		t.Helper()
		n := len(cl.Updates())
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q = %+v, %v; want end_turn", text, res, err)
		}
		if got := acpclient.AgentText(cl.UpdatesSince(n)); got != want {
			t.Errorf("text of %q = %q, want %q", text, got, want)
		}
		return lastRequestWith(t, srv, text)
	}
	const first = "Please remember the code word pelican."
	turn(sid, first, "I will remember the code word.")

	_, err = conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: "00000000-0000-4000-8000-000000000000", Cwd: env.Dir})
	if re, ok := e2eRPCError(err); !ok || re.Code != -32002 {
		t.Errorf("session/fork of an unknown id: %v, want error -32002 (resource not found)", err)
	}
	forked, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: sid, Cwd: env.Dir})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	fork := forked.SessionId
	if fork == "" || fork == sid {
		t.Fatalf("session/fork answered id %q (the original is %q)", fork, sid)
	}
	if forked.Modes == nil || forked.Modes.CurrentModeId != "read-only" {
		t.Errorf("session/fork modes = %+v; want read-only current", forked.Modes)
	}

	const onFork = "On the fork: what was the code word?"
	body := turn(fork, onFork, "The fork remembers pelican.")
	if !strings.Contains(body, first) || !strings.Contains(body, "I will remember the code word.") {
		t.Errorf("the fork's turn did not carry the earlier conversation to the model: %s", body)
	}
	const onOriginal = "On the original: go on."
	body = turn(sid, onOriginal, "The original goes on.")
	if !strings.Contains(body, first) {
		t.Errorf("the original's turn lost its conversation: %s", body)
	}
	if strings.Contains(body, onFork) || strings.Contains(body, "The fork remembers pelican.") {
		t.Errorf("the original's turn carries the fork's: %s", body)
	}

	list, err := conn.ListSessions(ctx, sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	var ids []sdk.SessionId
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionId)
	}
	if !slices.Contains(ids, sid) || !slices.Contains(ids, fork) {
		t.Errorf("session/list shows %v, want both %s and its fork %s", ids, sid, fork)
	}
	if err := b.Stop(t, 15*time.Second); err != nil {
		t.Errorf("bridge exit: %v", err)
	}
	if left := env.Processes(0); len(left) > 0 {
		t.Errorf("left running after the bridge exited: %v", left)
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}

// lastRequestWith is the body of the last model request that carries text.
func lastRequestWith(t *testing.T, srv *modelserver.Server, text string) string {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if b := string(reqs[i].Body); strings.Contains(b, text) {
			return b
		}
	}
	t.Fatalf("no model request carries %q", text)
	return ""
}
