package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// requireInterop returns node and the interop script's directory, or skips
// the test (fails it under CI=true, where .ci/run installs both).
func requireInterop(t *testing.T) (node, dir string) {
	t.Helper()
	dir = filepath.Join(filepath.Dir(fixture("x")), "..", "e2e", "http")
	fail := t.Skip
	if os.Getenv("CI") == "true" {
		fail = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		fail("node not found: the interop test needs Node.js 20 or later")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		fail("the ACP TypeScript SDK is not installed: run `make e2e-deps` (npm ci --prefix e2e/http)")
	}
	return node, dir
}

// TestInteropTypeScriptSDK has the official TypeScript SDK's Streamable
// HTTP client (@agentclientprotocol/sdk 2.4.0, experimental/http-client)
// run a whole session against `acpbridge serve replay`, with a token:
// initialize, a session, a turn with two permission requests answered on
// the session's stream, a cancel, session/close, and DELETE at the end.
func TestInteropTypeScriptSDK(t *testing.T) {
	t.Parallel()
	node, dir := requireInterop(t)
	s := startServe(t, []string{"ACPBRIDGE_TOKEN=interop-token"}, "replay", fixture("claude/demo.txtar"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "interop.mjs"), s.url+"/acp", "Add a hello-world command")
	cmd.Env = append(os.Environ(), "ACPBRIDGE_TOKEN=interop-token")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("interop.mjs: %v\n%s%s", err, out, stderr.String())
	}
	var got struct {
		Agent           string         `json:"agent"`
		ProtocolVersion int            `json:"protocolVersion"`
		SessionID       string         `json:"sessionId"`
		Updates         map[string]int `json:"updates"`
		ForeignUpdates  int            `json:"foreignUpdates"`
		Permissions     int            `json:"permissions"`
		StopReason      string         `json:"stopReason"`
		Closed          bool           `json:"closed"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("interop.mjs printed %q: %v", out, err)
	}
	t.Logf("TypeScript SDK client: %s", bytes.TrimSpace(out))
	if got.Agent != "acpbridge" || got.ProtocolVersion != 1 || got.SessionID == "" {
		t.Errorf("handshake: %+v", got)
	}
	if got.StopReason != "end_turn" || got.Permissions != 2 || !got.Closed || got.ForeignUpdates != 0 {
		t.Errorf("session: %+v", got)
	}
	for _, kind := range []string{"agent_message_chunk", "tool_call", "tool_call_update", "plan", "available_commands_update"} {
		if got.Updates[kind] == 0 {
			t.Errorf("no %s update reached the client: %v", kind, got.Updates)
		}
	}
	// Closing the SDK's stream ends the connection with DELETE.
	s.log(t, `"why":"DELETE"`)
}
