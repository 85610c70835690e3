package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
)

// TestTraceRecordsBothSides runs a turn with --trace and checks the file
// holds one JSON line per frame, with time and direction, for the editor's
// side and the wrapped agent's side, and that it is not on stdout.
func TestTraceRecordsBothSides(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	b := startBridge(t, "--trace", path, "--log-file", logPath, "--log-level", "debug", "replay", fixture("claude/text.txtar"))
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	b.Stdin.Close()
	if err := b.Wait(t, 10*time.Second); err != nil {
		t.Fatalf("bridge exit: %v", err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dirs := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Time string          `json:"time"`
			Dir  string          `json:"dir"`
			Msg  json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("trace line is not JSON: %q", sc.Text())
		}
		if _, err := time.Parse(time.RFC3339Nano, line.Time); err != nil || len(line.Msg) == 0 {
			t.Fatalf("trace line without time or msg: %q", sc.Text())
		}
		dirs[line.Dir]++
	}
	for _, d := range []string{"editor->bridge", "bridge->editor", "bridge->agent", "agent->bridge"} {
		if dirs[d] == 0 {
			t.Errorf("no %s frames in the trace: %v", d, dirs)
		}
	}
	logs, err := os.ReadFile(logPath)
	if err != nil || len(logs) == 0 {
		t.Errorf("--log-file got nothing (%v)", err)
	}
	if s := b.Stderr.String(); s != "" {
		t.Errorf("with --log-file, stderr should be quiet, got:\n%s", s)
	}
}
