//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
)

// nativeTypeScript has the official TypeScript SDK's HTTP client
// (e2e/http/native.mjs) run the core of an editor session against `acpbridge
// serve NAME` in the world of a CLI whose stdio tests have run (a warm HOME,
// as a user's is), with a fresh model server: a text turn, a shell command
// it allows, and a cancel while the answer streams. The script reports
// every update and permission request in arrival order, and the same
// assertions as on stdio apply. After serve has stopped, no process of the
// world may be left.
func nativeTypeScript(t *testing.T, w *nativeWorld) {
	node, dir := requireInterop(t)
	w.freshModel(t)
	trace := filepath.Join(w.root, "serve-trace.jsonl")
	s := startServe(t, append(w.bridgeEnv(), "ACPBRIDGE_TRACE="+trace), w.bridgeArgs()...)
	got := runNativeScript(t, node, filepath.Join(dir, "native.mjs"), s.url+"/acp", w.env.Dir,
		agentenv.HelloPrompt, agentenv.AllowPrompt, agentenv.SlowPrompt)
	w.tree.Track(s.Cmd.Process.Pid)
	s.stop(t)
	w.tree.Check(t)
	checkTrace(t, w.schema.NewChecker(), trace)
	// agentInfo is the CLI's own, passed through.
	if got.Agent == "" || got.SessionID == "" || len(got.Turns) != 3 {
		t.Fatalf("agent %q, session %q, %d turns; want the agent's name, a session and 3 turns", got.Agent, got.SessionID, len(got.Turns))
	}
	hello, allowed, cancelled := got.Turns[0], got.Turns[1], got.Turns[2]

	wantEndTurn(t, hello.turn())
	if text := chunks(hello.Frames, "agent_message_chunk"); !strings.Contains(strings.Join(text, ""), agentenv.HelloText) || nonEmpty(text) < 2 {
		t.Errorf("text turn: agent text %q, want %q streamed in several chunks", text, agentenv.HelloText)
	}

	wantEndTurn(t, allowed.turn())
	id := onePermission(t, allowed.Frames)
	toolCallsAnnounced(t, allowed.Frames)
	if s := lastStatus(allowed.Frames, id); s != "completed" {
		t.Errorf("the allowed tool call %s ended %q, want completed", id, s)
	}
	if _, err := os.Stat(filepath.Join(w.env.Dir, agentenv.AllowFile)); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if text := strings.Join(chunks(allowed.Frames, "agent_message_chunk"), ""); !strings.Contains(text, agentenv.AfterAllowText) {
		t.Errorf("agent text %q lacks the model's answer to the command's output %q", text, agentenv.AfterAllowText)
	}

	t.Logf("%s over HTTP: session/cancel -> %q in %d ms", w.name, cancelled.StopReason, cancelled.CancelMS)
	if cancelled.Error != "" || cancelled.StopReason != "cancelled" {
		t.Errorf("cancelled turn answered %q, %q; want stopReason cancelled", cancelled.StopReason, cancelled.Error)
	}
	if cancelled.CancelMS > 6000 {
		t.Errorf("the cancelled turn took %d ms to answer; the bridge's own grace is 2 s", cancelled.CancelMS)
	}
}

// nativeSummary is what native.mjs prints.
type nativeSummary struct {
	Agent     string
	SessionID string
	Turns     []nativeTurn
}

// nativeTurn is one prompt of native.mjs: its answer, and the updates and
// permission requests it brought, in arrival order.
type nativeTurn struct {
	Prompt, StopReason, Error string
	CancelMS                  int
	Frames                    []wireFrame
}

// turn is the prompt's answer as the stdio tests see one.
func (n nativeTurn) turn() turn {
	r := turn{stop: sdk.StopReason(n.StopReason), frames: n.Frames}
	if n.Error != "" {
		r.err = errors.New(n.Error)
	}
	return r
}

// runNativeScript runs native.mjs with args and decodes its summary.
func runNativeScript(t *testing.T, node, script string, args ...string) nativeSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("native.mjs: %v\n%s%s", err, out, stderr.String())
	}
	var got nativeSummary
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("native.mjs printed %.2000q: %v", out, err)
	}
	return got
}

// checkTrace validates every frame the bridge wrote to the editor, as its
// --trace recorded them, against the ACP schema.
func checkTrace(t *testing.T, check *acptest.Checker, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var f struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("trace line %.200q: %v", line, err)
		}
		switch f.Dir {
		case "editor->bridge":
			check.ClientFrame(f.Msg)
		case "bridge->editor":
			if err := check.AgentFrame(f.Msg); err != nil {
				t.Errorf("bridge to editor over HTTP: %v", err)
			}
		}
	}
	if check.Checked() == 0 {
		t.Error("the trace holds no frame the bridge wrote to the editor")
	}
}
