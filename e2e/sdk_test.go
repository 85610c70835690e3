package e2e

import (
	"context"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
)

// TestSDKClientDrivesReplay has the independent SDK client run the bundled
// demo session through the built binary: handshake, a session, a turn with a
// permission request, and the updates an editor needs to render it.
func TestSDKClientDrivesReplay(t *testing.T) {
	t.Parallel()
	b := startBridge(t, "replay", fixture("claude/demo.txtar"))
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ProtocolVersion != 1 || init.AgentInfo == nil || init.AgentInfo.Name != "acpbridge" {
		t.Fatalf("initialize answer: %+v", init)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if sess.SessionId == "" || sess.Modes == nil || len(sess.ConfigOptions) == 0 {
		t.Fatalf("session/new answer lacks id, modes or config options: %+v", sess)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId,
		Prompt: []sdk.ContentBlock{sdk.TextBlock("Add a greeting script and run it")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q, want end_turn", res.StopReason)
	}
	var text, thought, plans int
	kinds := map[sdk.ToolKind]int{}
	completed := map[sdk.ToolCallId]bool{}
	for _, u := range cl.Updates() {
		switch {
		case u.AgentMessageChunk != nil:
			text++
		case u.AgentThoughtChunk != nil:
			thought++
		case u.Plan != nil:
			plans++
		case u.ToolCall != nil:
			kinds[u.ToolCall.Kind]++
		case u.ToolCallUpdate != nil:
			if u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted {
				completed[u.ToolCallUpdate.ToolCallId] = true
			}
		}
	}
	if text == 0 || plans == 0 {
		t.Errorf("agent text chunks = %d, plans = %d; want both", text, plans)
	}
	if kinds[sdk.ToolKindExecute] == 0 || kinds[sdk.ToolKindEdit] == 0 {
		t.Errorf("tool call kinds = %v; want execute and edit", kinds)
	}
	if len(completed) < 2 {
		t.Errorf("%d tool calls completed, want at least 2", len(completed))
	}
	if len(cl.Asked()) == 0 {
		t.Fatal("no permission was asked")
	}
	for _, a := range cl.Asked() {
		if a.ToolCall.Title == nil || *a.ToolCall.Title == "" || len(a.Options) != 4 {
			t.Errorf("permission request lacks a title or the four options: %+v", a)
		}
	}
	if b.Tap.Checker().Checked() == 0 {
		t.Error("no frame was schema-checked")
	}
}

// TestSDKClientAnswersOtherwise: the independent SDK client rejects, or
// cancels, the permission the demo recording allowed. The replay must not
// play the recorded allow: the tool fails and the turn ends honestly.
func TestSDKClientAnswersOtherwise(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		answer sdk.PermissionOptionKind // a kind not offered makes the client cancel
		stop   sdk.StopReason
	}{
		{"reject", sdk.PermissionOptionKindRejectOnce, sdk.StopReasonEndTurn},
		{"cancelled", "none", sdk.StopReasonCancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := startBridge(t, "replay", fixture("claude/demo.txtar"))
			cl := acpclient.New(tt.answer)
			conn := cl.Connect(b.Stdin, b.Stdout)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId,
				Prompt: []sdk.ContentBlock{sdk.TextBlock("Add a hello-world command")}})
			if err != nil {
				t.Fatalf("session/prompt: %v", err)
			}
			if res.StopReason != tt.stop {
				t.Errorf("stopReason = %q, want %q", res.StopReason, tt.stop)
			}
			final := map[sdk.ToolCallId]sdk.ToolCallStatus{}
			for _, u := range cl.Updates() {
				if tc := u.ToolCallUpdate; tc != nil && tc.Status != nil {
					final[tc.ToolCallId] = *tc.Status
				}
			}
			if len(cl.Asked()) != 1 || len(final) != 1 {
				t.Fatalf("%d permission requests, final tool states %v; want one tool, asked once", len(cl.Asked()), final)
			}
			for id, st := range final {
				if st != sdk.ToolCallStatusFailed {
					t.Errorf("tool %s ended %q, want failed", id, st)
				}
			}
		})
	}
}
