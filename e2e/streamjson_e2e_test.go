package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestStreamJSONDialectFileEndToEnd runs the built binary as a user would
// with a dialect file of their own, `acpbridge stream-json --dialect FILE --
// CMD ARGS`, the scripted relay CLI (every message and tool renamed) its
// child process, and drives it with the independent SDK client: the
// dialect's modes offered, streamed text, a renamed shell tool asked about,
// allowed and shown with its console output, a cancelled turn, and on
// stdin EOF a clean exit with no process left behind.
func TestStreamJSONDialectFileEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := &bridgeproc.Tree{Root: dir}
	b := bridgeproc.Start(t, binPath, bridgeproc.Options{Tree: tree, WantClean: true,
		Env: append(os.Environ(), "GORACE=atexit_sleep_ms=0"),
		Args: []string{"stream-json", "--dialect", fixture("testsupport/dialectagent/relay.toml"),
			"--", relayAgentPath, "--from-e2e"}})
	cl := acpclient.New(sdk.PermissionOptionKindAllowOnce)
	conn := b.Connect(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "ask" || len(sess.Modes.AvailableModes) != 2 {
		t.Errorf("modes %+v: want the dialect file's ask and trust, ask current", sess.Modes)
	}
	turn := func(text string) sdk.StopReason {
		t.Helper()
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			t.Fatalf("session/prompt %q: %v", text, err)
		}
		return res.StopReason
	}

	n, _ := cl.Mark()
	if stop := turn("say hello"); stop != sdk.StopReasonEndTurn {
		t.Errorf("text turn ended %q", stop)
	}
	if got := acpclient.AgentText(cl.UpdatesSince(n)); got != "Hello from relay." {
		t.Errorf("text %q, want the relay's streamed greeting", got)
	}
	b.Track()

	n, asked := cl.Mark()
	if stop := turn("run it"); stop != sdk.StopReasonEndTurn {
		t.Errorf("tool turn ended %q", stop)
	}
	us := cl.UpdatesSince(n)
	var call *sdk.SessionUpdateToolCall
	for _, u := range us {
		if u.ToolCall != nil {
			call = u.ToolCall
		}
	}
	if call == nil || call.Kind != sdk.ToolKindExecute || call.Title != "Run echo hi" {
		t.Fatalf("the renamed shell tool: %+v, want kind execute titled by the dialect", call)
	}
	if st := acpclient.ToolStatuses(us)[call.ToolCallId]; st != sdk.ToolCallStatusCompleted {
		t.Errorf("shell tool ended %q, want completed", st)
	}
	if len(cl.AskedSince(asked)) != 1 {
		t.Errorf("%d permission questions for the shell tool, want 1", len(cl.AskedSince(asked)))
	}
	if frames := strings.Join(b.Tap.Lines(), "\n"); !strings.Contains(frames, "```console\\nhi") {
		t.Error("the tool's output is not shown as console text")
	}
	if !strings.Contains(acpclient.AgentText(us), "Done: sh") {
		t.Errorf("text after the tool %q", acpclient.AgentText(us))
	}

	n, _ = cl.Mark()
	stopped := make(chan sdk.StopReason, 1)
	go func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hang")}})
		if err != nil {
			t.Errorf("cancelled prompt: %v", err)
		}
		stopped <- res.StopReason
	}()
	if err := cl.WaitFor(ctx, "the hanging turn's first chunk", func() bool {
		return strings.Contains(acpclient.AgentText(cl.UpdatesSince(n)), "Working")
	}); err != nil {
		t.Fatal(err)
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case stop := <-stopped:
		if stop != sdk.StopReasonCancelled {
			t.Errorf("cancelled turn ended %q", stop)
		}
	case <-ctx.Done():
		t.Fatal("the cancelled turn did not end")
	}
	b.Track()
	if err := b.Stop(t, 10*time.Second); err != nil {
		t.Errorf("exit on stdin EOF: %v", err)
	}
}
