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

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestInteropTypeScriptSDKElicitation has the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0) advertise form elicitation to `acpbridge
// serve claude` on the real CLI and answer the form that the model's
// AskUserQuestion becomes; the answers must reach the model.
func TestInteropTypeScriptSDKElicitation(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "ask_question")
	out := runInteropScript(t, w, "ask.mjs", "Set up the new service.")
	var got struct {
		Forms []struct {
			Mode, SessionID, ToolCallID string
			Fields                      map[string]string
		}
		ToolStatus map[string]string
		StopReason string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("ask.mjs printed %q: %v", out, err)
	}
	if len(got.Forms) != 1 || got.Forms[0].Mode != "form" || got.Forms[0].ToolCallID != "toolu_e2e_ask" ||
		got.Forms[0].Fields["q1"] != "string" || got.Forms[0].Fields["q2"] != "array" {
		t.Errorf("forms %+v, want one form with q1 a choice and q2 a multi-select", got.Forms)
	}
	if got.StopReason != "end_turn" || got.ToolStatus["toolu_e2e_ask"] != "completed" {
		t.Errorf("stop reason %q, tool statuses %v", got.StopReason, got.ToolStatus)
	}
	reqs := w.mainRequestsText()
	last := reqs[len(reqs)-1]
	for _, want := range []string{`Which database should the service use?\"=\"PostgreSQL\"`, `Which features do you want?\"=\"Metrics\"`} {
		if !strings.Contains(last, want) {
			t.Errorf("the model's last request lacks %s:\n%s", want, bridgeproc.Tail(last, 800))
		}
	}
}

// runInteropScript serves the real CLI of world w with `acpbridge serve
// claude` and runs one of the TypeScript SDK client scripts of e2e/http
// against it (its arguments: the endpoint, the project, then args), returning
// what the script printed.
func runInteropScript(t *testing.T, w *e2eWorld, script string, args ...string) []byte {
	t.Helper()
	node, dir := requireInterop(t)
	s := startServe(t, w.env, "claude", "--claude-path", w.claudePath)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, script), s.url + "/acp", w.proj}, args...)...)
	cmd.Env = os.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", script, err, out, stderr.String())
	}
	t.Logf("TypeScript SDK client: %s", bytes.TrimSpace(out))
	return out
}
