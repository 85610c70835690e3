package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
)

// buildFakeTUI builds cmd/dev/faketui, the fake terminal agent, into a
// temporary directory.
func buildFakeTUI(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "faketui")
	build := exec.Command("go", "build", "-o", out, "../cmd/dev/faketui")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/dev/faketui: %v\n%s", err, b)
	}
	return out
}

// An editor on the independent SDK drives a terminal agent through
// `acpbridge pty`: a permission dialog allowed, the reply as clean text,
// then a cancel while the agent streams.
func TestSDKClientDrivesPTY(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	b := startBridge(t, "pty", "--", tui)
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
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("please run it")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt = %+v, %v; want end_turn", res, err)
	}
	if got, want := agentText(cl), "I will run a command.\nCommand ran: 3 files."; got != want {
		t.Errorf("agent text = %q, want %q", got, want)
	}
	mark, asked := cl.Mark()
	if asked != 1 {
		t.Fatalf("asked %d times, want once", asked)
	}

	done := make(chan error, 1)
	go func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("a long story")}})
		if err == nil && res.StopReason != sdk.StopReasonCancelled {
			err = errStop(res.StopReason)
		}
		done <- err
	}()
	for textSince(cl, mark) == "" {
		select {
		case err := <-done:
			t.Fatalf("the long turn ended before streaming: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	cancelled := time.Now()
	if err := <-done; err != nil {
		t.Fatalf("cancelled prompt: %v", err)
	}
	t.Logf("cancelled after %s", time.Since(cancelled).Round(time.Millisecond))
	// Whatever had streamed by the cancel: the agent's words, clean.
	if got := textSince(cl, mark); !regexp.MustCompile(`^word1(\s+word\d+)*$`).MatchString(got) {
		t.Errorf("streamed text = %q, want the words the agent wrote", got)
	}
}

type errStop sdk.StopReason

func (e errStop) Error() string { return "stopReason " + string(e) + ", want cancelled" }

func agentText(cl *acpclient.Editor) string { return acpclient.AgentText(cl.Updates()) }

// textSince is the agent's text after a mark of cl.
func textSince(cl *acpclient.Editor, mark int) string {
	us, _ := cl.Since(mark, 0)
	return acpclient.AgentText(us)
}

// TestServePTY has a remote client run a turn of the fake terminal agent
// through `acpbridge serve pty`: the PTY adapter is served over HTTP like
// every other, its dialog reaching the client as a permission request.
func TestServePTY(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	s := startServe(t, nil, "pty", "--", tui)
	r := dialRemote(t, s.url, "pty-remote", "")
	sid := r.open(t.TempDir())
	id := r.call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "please run it"}}})
	var said strings.Builder
	asked := 0
	var m map[string]any
	for m == nil {
		select {
		case f := <-r.frames:
			p, _ := f["params"].(map[string]any)
			switch {
			case answerTo(id)(f):
				m = f
			case f["method"] == "session/request_permission":
				// The dialog's own options: take the first (allow).
				asked++
				opts, _ := p["options"].([]any)
				first, _ := opts[0].(map[string]any)
				r.post(map[string]any{"jsonrpc": "2.0", "id": f["id"], "result": map[string]any{
					"outcome": map[string]any{"outcome": "selected", "optionId": first["optionId"]}}})
			default:
				if u, _ := p["update"].(map[string]any); u != nil && u["sessionUpdate"] == "agent_message_chunk" {
					text, _ := u["content"].(map[string]any)["text"].(string)
					said.WriteString(text)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no answer to the prompt within 20s")
		}
	}
	res, _ := m["result"].(map[string]any)
	if stop, _ := res["stopReason"].(string); stop != "end_turn" || asked != 1 || !strings.Contains(said.String(), "I will run a command.") {
		t.Errorf("turn answered %v after %d permission requests, the agent saying %q", m, asked, said.String())
	}
	s.stop(t)
}
