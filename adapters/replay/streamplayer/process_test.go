package streamplayer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/leakcheck"
)

// Environment of the fork/exec trick: when envFixture is set, the test
// binary plays that fixture on its own stdin/stdout instead of running tests.
const (
	envFixture = "ACPBRIDGE_FAKEAGENT"
	envSession = "ACPBRIDGE_FAKEAGENT_SESSION"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(envFixture); path != "" {
		err := PlayFile(context.Background(), path, os.Stdin, os.Stdout, Options{
			SessionID: os.Getenv(envSession),
			Logger:    os.Stderr,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(leakcheck.Main(m))
}

func requireExec(t *testing.T) {
	t.Helper()
	switch runtime.GOOS {
	case "js", "wasip1", "ios", "android":
		t.Skipf("cannot exec subprocesses on %s", runtime.GOOS)
	}
}

// fakeCommand returns a command that runs this test binary as a fake agent
// playing fixture.
func fakeCommand(t *testing.T, ctx context.Context, fixture string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no executable: %v", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), append([]string{envFixture + "=" + fixture}, env...)...)
	return cmd
}

func TestProcess(t *testing.T) {
	requireExec(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := fakeCommand(t, ctx, "testdata/turn.txtar", envSession+"=live-session")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout := bufio.NewReader(stdoutPipe)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// recv reads one line and returns its type and the field at path.
	recv := func() map[string]any {
		t.Helper()
		line, err := stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("reading: %v (stderr: %s)", err, stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		return m
	}

	send(`{"type":"control_request","request_id":"init-7","request":{"subtype":"initialize"}}`)
	if m := recv(); m["type"] != "control_response" || m["response"].(map[string]any)["request_id"] != "init-7" {
		t.Fatalf("initialize answer = %v", m)
	}
	send(`{"type":"user","message":{"role":"user","content":"hi"}}`)
	if m := recv(); m["subtype"] != "init" || m["session_id"] != "live-session" {
		t.Fatalf("init = %v", m)
	}
	recv() // assistant tool_use
	if m := recv(); m["type"] != "control_request" || m["request_id"] != "perm-1" {
		t.Fatalf("permission request = %v", m)
	}
	send(`{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow"}}}`)
	recv() // tool result
	recv() // assistant text
	if m := recv(); m["type"] != "result" || m["session_id"] != "live-session" {
		t.Fatalf("result = %v", m)
	}
	stdin.Close()
	if line, err := stdout.ReadString('\n'); err != io.EOF {
		t.Fatalf("after stdin EOF: %q, %v", line, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fake agent: %v\nstderr: %s", err, stderr.String())
	}
}

func TestProcessBadFixture(t *testing.T) {
	requireExec(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := fakeCommand(t, ctx, "testdata/does-not-exist.txtar")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "does-not-exist") {
		t.Fatalf("err = %v, output %q; want exit 1 naming the file", err, out)
	}
}
