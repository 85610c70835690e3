//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// ptyTurn runs one prompt against a bridge started with args, answering
// permission requests with the first option of kind answer, then closes
// its stdin and waits until it has exited. It returns the reply text and
// the stop reason.
func ptyTurn(t *testing.T, text string, answer sdk.PermissionOptionKind, args ...string) (string, sdk.StopReason) {
	t.Helper()
	b := startBridge(t, args...)
	cl := acpclient.New(answer)
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
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	b.Stdin.Close()
	select {
	case <-conn.Done(): // the bridge's stdout ended: it has exited
	case <-ctx.Done():
		t.Fatalf("the bridge did not exit after stdin EOF; stderr:\n%s", b.Stderr.String())
	}
	return agentText(cl), res.StopReason
}

// `acpbridge replay` plays a PTY recording through the PTY engine: the
// recorded dialog reaches the editor as a permission request and the reply
// is the recorded one.
func TestReplayPTYRecording(t *testing.T) {
	t.Parallel()
	got, stop := ptyTurn(t, "please run it", sdk.PermissionOptionKindAllowOnce, "replay", fixture("pty/dialog_yn.txtar"))
	if want := "I will run a command.\nCommand ran: 3 files."; got != want || stop != sdk.StopReasonEndTurn {
		t.Errorf("replay answered %q, %s; want %q, end_turn", got, stop, want)
	}
}

// `acpbridge pty --record FILE` with a profile of one's own (a file)
// writes a recording that `acpbridge replay` serves with the same answer
// once the profile's file is gone (the recording carries the profile), and
// that holds no path of this machine.
func TestPTYRecordThenReplay(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.txtar")
	var src bytes.Buffer
	if code := runBridgeIn(t, &src, "pty", "--print-profile", "faketui"); code != 0 {
		t.Fatalf("--print-profile: exit %d", code)
	}
	profile := filepath.Join(t.TempDir(), "mine.toml")
	if err := os.WriteFile(profile, bytes.Replace(src.Bytes(), []byte(`name = "faketui"`), []byte(`name = "mine"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	live, stop := ptyTurn(t, "edit the notes", sdk.PermissionOptionKindAllowAlways, "pty", "--profile", profile, "--record", rec, "--", tui)
	if err := os.Remove(profile); err != nil {
		t.Fatal(err)
	}
	if want := "I will edit notes.txt.\nFile edited."; live != want || stop != sdk.StopReasonEndTurn {
		t.Fatalf("live turn answered %q, %s; want %q, end_turn", live, stop, want)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("no recording: %v", err)
	}
	for _, machine := range []string{tui, dir} {
		if strings.Contains(string(data), machine) {
			t.Errorf("the recording holds %q", machine)
		}
	}
	replayed, stop := ptyTurn(t, "edit the notes", sdk.PermissionOptionKindAllowAlways, "replay", rec)
	if replayed != live || stop != sdk.StopReasonEndTurn {
		t.Errorf("replay answered %q, %s; the live turn %q, end_turn", replayed, stop, live)
	}
}

// Stdin EOF of `acpbridge pty` leaves no process behind: not the TUI, and
// not the child it started in a process group of its own.
func TestPTYStdinEOFLeavesNoProcess(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	if _, stop := ptyTurn(t, "hello", sdk.PermissionOptionKindAllowOnce, "pty", "--", tui, "-child-pid", pidFile); stop != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended %s, want end_turn", stop)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake TUI wrote no child pid: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if bridgeproc.Alive(pid) {
		t.Errorf("the TUI's child %d survived the bridge", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// `acpbridge pty --explain` runs the agent and shows on stderr which of
// the profile's patterns match its screen, typing the lines of stdin; it
// serves no ACP, so stdout stays empty.
func TestPTYExplain(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	cmd := exec.Command(binPath, "pty", "--explain", "--", tui)
	cmd.Stdin = strings.NewReader("hello\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("explain: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("explain did not end at the end of stdin; stderr:\n%s", stderr.String())
	}
	for _, want := range []string{`idle '^  \? for shortcuts$' matches line`, "=> idle", `── typing "hello" and enter`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
}

// runBridgeIn runs the built bridge with args, its stdout into out, and
// returns its exit code.
func runBridgeIn(t *testing.T, out *bytes.Buffer, args ...string) int {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Stdout = out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// `acpbridge pty` on an agent at its sign-in screen answers the prompt
// auth-required (-32000) within seconds, with the profile's hint, rather
// than an internal error at the start-up limit.
func TestPTYSignInScreen(t *testing.T) {
	t.Parallel()
	tui := buildFakeTUI(t)
	b := startBridge(t, "pty", "--", tui, "-login")
	conn := acpclient.New(sdk.PermissionOptionKindAllowOnce).Connect(b.Stdin, b.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	start := time.Now()
	_, err = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, "is not logged in") {
		t.Fatalf("session/prompt error = %v; want -32000 saying the agent is not logged in", err)
	}
	if d := time.Since(start); d > 25*time.Second { // the start-up limit is 30 s
		t.Errorf("answered after %s", d.Round(time.Millisecond))
	}
}
