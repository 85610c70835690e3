package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestSDKClientDrivesEveryKindOfReplay has the independent SDK client play
// one recording of each JSON-RPC kind, and Qwen Code's in its stream-JSON
// dialect, through the built binary's replay
// command (Claude Code's is TestSDKClientDrivesReplay): a session, a turn
// whose command the editor allows, its tool call run to completion and the
// agent's text.
func TestSDKClientDrivesEveryKindOfReplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture, prompt string
	}{
		{"gemini/tool_allow.txtar", "RUN-ALLOWED: print the marker."},
		{"copilot/tool_allow.txtar", "RUN-ALLOWED: print the marker."},
		{"codex/command_allow.txtar", "run allowed"},
		{"qwen/stream_json_tool_allow.txtar", "RUN-ALLOWED: print the marker."},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			b := startBridge(t, "replay", fixture(tt.fixture))
			cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
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
				Prompt: []sdk.ContentBlock{sdk.TextBlock(tt.prompt)}})
			if err != nil {
				t.Fatalf("session/prompt: %v", err)
			}
			if res.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("stopReason = %q, want end_turn", res.StopReason)
			}
			var text strings.Builder
			completed := 0
			for _, u := range cl.Updates() {
				if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
					text.WriteString(c.Content.Text.Text)
				}
				if u := u.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == sdk.ToolCallStatusCompleted {
					completed++
				}
			}
			if len(cl.Asked()) != 1 || completed == 0 || text.Len() == 0 {
				t.Errorf("%d permission requests, %d tool calls completed, agent text %q; want one, some and some",
					len(cl.Asked()), completed, text.String())
			}
		})
	}
}

// TestServeNativeReplay serves a native-ACP recording over HTTP to two
// clients at once: each session is its own player with its own session id,
// so each client sees its turn, and only its own.
func TestServeNativeReplay(t *testing.T) {
	t.Parallel()
	s := startServe(t, nil, "replay", fixture("copilot/tool_allow.txtar"))
	type result struct {
		sid string
		err error
	}
	done := make(chan result, 2)
	for i := range 2 {
		r := dialRemote(t, s.url, fmt.Sprintf("client-%d", i), "")
		go func() {
			sid := r.open("/home/user/project")
			id := r.call("session/prompt", map[string]any{"sessionId": sid,
				"prompt": []any{map[string]any{"type": "text", "text": "RUN-ALLOWED: print the marker."}}})
			foreign := 0
			m, asked := r.until(func(m map[string]any) bool {
				if p, ok := m["params"].(map[string]any); ok && p["sessionId"] != nil && p["sessionId"] != sid {
					foreign++
				}
				return answerTo(id)(m)
			})
			stop, _ := m["result"].(map[string]any)["stopReason"].(string)
			if stop != "end_turn" || asked != 1 || foreign != 0 {
				done <- result{sid, fmt.Errorf("turn ended %q after %d permission requests, with %d messages of other sessions", stop, asked, foreign)}
				return
			}
			done <- result{sid, nil}
		}()
	}
	a, b := <-done, <-done
	for _, r := range []result{a, b} {
		if r.err != nil {
			t.Error(r.err)
		}
	}
	if a.sid == b.sid {
		t.Errorf("both clients got session %s", a.sid)
	}
	s.stop(t)
}

// TestReplayBuiltinDemo: `acpbridge replay demo` plays the recording built
// into the binary, from a folder without the repository's fixtures (as an
// installed binary runs): the demo's prompt gets its plan, its two
// permission requests and its summary.
func TestReplayBuiltinDemo(t *testing.T) {
	t.Parallel()
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: []string{"replay", "demo"}, Dir: t.TempDir()})
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
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
		Prompt: []sdk.ContentBlock{sdk.TextBlock("Add a hello-world command to this Go project under cmd/hello.")}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	plans := 0
	for _, u := range cl.Updates() {
		if u.Plan != nil {
			plans++
		}
	}
	if res.StopReason != sdk.StopReasonEndTurn || len(cl.Asked()) != 2 || plans == 0 {
		t.Errorf("stopReason %q, %d permission requests, %d plans; want end_turn, 2 and some", res.StopReason, len(cl.Asked()), plans)
	}
}
