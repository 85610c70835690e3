//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// `acpbridge pty -- gemini` (the real Gemini CLI TUI, offline against the
// scripted Gemini API) answers a text turn, and on stdin EOF exits leaving
// no process of the CLI: its launcher relaunches node as a child, and both
// must go.
func TestPTYGeminiStdinEOF(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cwd := filepath.Join(root, "project")
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "SAY-HELLO", Blocks: []modelserver.Block{modelserver.Text("Hello from the scripted model.")}}}},
		modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	e := agentenv.Require(t, "gemini", agentenv.Options{ModelURL: url, Root: root, Cwd: cwd})
	// A trusted folder: on a first start the trust dialog comes up after
	// the idle screen (see the gemini profile's test in adapters/pty).
	trusted, _ := json.Marshal(map[string]string{cwd: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "trustedFolders.json"), trusted, 0o644); err != nil {
		t.Fatal(err)
	}
	tui := slices.DeleteFunc(slices.Clone(e.Argv), func(a string) bool { return slices.Contains(e.Agent.ACPArgs, a) })

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: append([]string{"--log-level", "debug", "pty", "--"}, tui...),
		Env: append(e.Env, "TERM=xterm-256color"), Dir: cwd})
	stderr := b.Stderr
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := cl.Connect(b.Stdin, b.Stdout)
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("SAY-HELLO please")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn || !strings.Contains(agentText(cl), "Hello from the scripted model.") {
		t.Fatalf("session/prompt = %+v, %v, saying %q; want end_turn and the model's text\nbridge stderr:\n%s", res, err, agentText(cl), stderr.String())
	}
	if len(slices.DeleteFunc(bridgeproc.HomeProcesses(e.Home), func(pid int) bool { return pid == b.Cmd.Process.Pid })) == 0 {
		t.Fatal("no process of the running CLI found: the check after EOF would prove nothing")
	}

	b.Stdin.Close()
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatalf("the bridge did not exit after stdin EOF; stderr:\n%s", stderr.String())
	}
	if err := b.Wait(t, 10*time.Second); err != nil {
		t.Errorf("bridge exit: %v; stderr:\n%s", err, stderr.String())
	}
	// No process of the CLI is left after stdin EOF.
	(&bridgeproc.Tree{Home: e.Home}).Check(t)
}
