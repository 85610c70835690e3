//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestInteropTypeScriptSDKCodex has the official TypeScript SDK client
// (e2e/http/codex.mjs) drive `acpbridge serve codex` on the real Codex,
// offline: a text turn, an escalated command allowed (it runs), one
// rejected (it fails, the turn goes on to the model's answer), and a
// streaming turn cancelled after its first chunk.
func TestInteropTypeScriptSDKCodex(t *testing.T) {
	bin := codexenv.Require(t)
	node, dir := requireInterop(t)
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hello from Codex.")}},
		{Match: "run allowed", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
			Input: json.RawMessage(`{"command":"touch allowed-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
		{Match: "run declined", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
			Input: json.RawMessage(`{"command":"touch declined-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
		{Match: "stream slowly", DeltaDelayMS: 20, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
			Text: strings.Repeat("slow words ", 200), Deltas: 200}}},
	}, Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Done.")}}}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, env.Vars, "codex", "--codex-path", bin, "--mode", "read-only")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "codex.mjs"), s.url+"/acp", env.Dir)
	cmd.Env = os.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex.mjs: %v\n%s%s", err, out, stderr.String())
	}
	var got struct {
		Turns []struct {
			Prompt, StopReason, Text string
			Permissions              int
			Tools                    map[string]string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Turns) != 4 {
		t.Fatalf("codex.mjs printed %q (%v); want four turns", out, err)
	}
	oneTool := func(i int) string {
		for _, st := range got.Turns[i].Tools {
			if len(got.Turns[i].Tools) == 1 {
				return st
			}
		}
		return ""
	}
	hi, allowed, declined, cancelled := got.Turns[0], got.Turns[1], got.Turns[2], got.Turns[3]
	if hi.StopReason != "end_turn" || hi.Text != "Hello from Codex." {
		t.Errorf("text turn = %+v", hi)
	}
	if allowed.StopReason != "end_turn" || allowed.Permissions != 1 || oneTool(1) != "completed" {
		t.Errorf("allowed command turn = %+v; want one permission and the command completed", allowed)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "allowed-file")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if declined.StopReason != "end_turn" || declined.Permissions != 1 || oneTool(2) != "failed" || declined.Text != "Done." {
		t.Errorf("declined command turn = %+v; want one permission, the command failed, the model's answer after", declined)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "declined-file")); err == nil {
		t.Error("the declined command ran")
	}
	if cancelled.StopReason != "cancelled" || cancelled.Text == "" || len(cancelled.Text) >= len(strings.Repeat("slow words ", 200)) {
		t.Errorf("cancelled turn: stop %q after %d bytes; want cancelled mid-stream", cancelled.StopReason, len(cancelled.Text))
	}
}
