package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestSDKClientDrivesCodex has the independent SDK client run the real
// Codex CLI, offline against the scripted Responses API, through the built
// binary: a text turn, then an escalated command the client rejects. The
// reject must not end the turn: Codex is told, and the model answers.
func TestSDKClientDrivesCodex(t *testing.T) {
	bin := codexenv.Require(t)
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Blocks: []modelserver.Block{modelserver.Thinking("Thinking."), modelserver.Text("Hello from Codex.")}},
		{Match: "make a file", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
			Input: json.RawMessage(`{"command":"touch rejected-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
	}, Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Understood, I did not make it.")}}}, modelserver.Options{})
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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: env.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "read-only" {
		t.Errorf("session/new modes = %+v; want read-only current", sess.Modes)
	}
	for _, text := range []string{"say hi", "make a file"} {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q = %+v, %v; want end_turn", text, res, err)
		}
	}
	var text, thought strings.Builder
	var failed bool
	for _, u := range cl.Updates() {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			thought.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			failed = *u.ToolCallUpdate.Status == sdk.ToolCallStatusFailed
		}
	}
	if text.String() != "Hello from Codex.Understood, I did not make it." || thought.String() != "Thinking." {
		t.Errorf("text = %q, thought = %q", text.String(), thought.String())
	}
	if len(cl.Asked()) != 1 || !failed {
		t.Errorf("asked %d times (want 1), rejected command failed = %v", len(cl.Asked()), failed)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "rejected-file")); err == nil {
		t.Error("the rejected command ran")
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}
