package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// binPath is the acpbridge binary built once for the end-to-end tests;
// fakeAgentPath is cmd/dev/fakeagent, a stand-in for a wrapped CLI that plays a
// recorded session as a real child process.
// acpAgentPath is cmd/dev/acpagent, a scripted agent that speaks ACP itself.
var binPath, fakeAgentPath, acpAgentPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpbridge-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "acpbridge")
	// Built as `make build` builds it, so benchmarks measure what users run
	// (the race detector needs cgo, so tests under -race keep it).
	flags := []string{"-trimpath", "-tags", "urfave_cli_no_docs", "-ldflags", "-s -w"}
	if raceEnabled {
		flags = append(flags, "-race")
	} else {
		os.Setenv("CGO_ENABLED", "0")
	}
	fakeAgentPath = filepath.Join(dir, "fakeagent")
	acpAgentPath = filepath.Join(dir, "acpagent")
	for _, b := range []struct{ out, pkg string }{{binPath, "."}, {fakeAgentPath, "../dev/fakeagent"}, {acpAgentPath, "../dev/acpagent"}} {
		args := append(append([]string{"build", "-o", b.out}, flags...), b.pkg)
		build := exec.Command("go", args...)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture returns the path of a bundled fixture.
func fixture(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name)
}

// bridgeProc is a running acpbridge with pipes to its stdin and stdout. Every
// line it writes to stdout is checked: JSON-RPC, and valid against the ACP
// schema.
type bridgeProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader // what the client reads: the bridge's stdout, checked
	stderr *lockedBuffer
	check  *acptest.Checker
}

func startBridge(t *testing.T, args ...string) *bridgeProc {
	t.Helper()
	v := acptest.Load(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &bridgeProc{cmd: cmd, stdin: &checkedWriter{w: stdin}, stderr: &lockedBuffer{}, check: v.NewChecker()}
	b.stdin.(*checkedWriter).check = b.check
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	b.stdout = pr
	copied := make(chan struct{})
	go copyChecked(t, out, pw, b.check, copied)
	t.Cleanup(func() {
		b.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("bridge did not exit within 10s of stdin EOF")
			cancel()
			<-done
		}
		cancel()
		pr.Close()
		<-copied
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", b.stderr.String())
		}
	})
	return b
}

// copyChecked copies the bridge's stdout to w line by line, validating
// every frame against the ACP schema, and closes w and done at the end.
func copyChecked(t *testing.T, out io.Reader, w *io.PipeWriter, check *acptest.Checker, done chan<- struct{}) {
	defer close(done)
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if cerr := check.AgentFrame(line); cerr != nil {
				t.Errorf("bridge stdout: %v", cerr)
			}
			w.Write(line)
		}
		if err != nil {
			w.Close()
			return
		}
	}
}

// checkedWriter records each client frame so the bridge's answers can be
// validated against the method they answer.
type checkedWriter struct {
	w     io.WriteCloser
	check *acptest.Checker
	buf   []byte
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			break
		}
		c.check.ClientFrame(c.buf[:i])
		c.buf = c.buf[i+1:]
	}
	return c.w.Write(p)
}

func (c *checkedWriter) Close() error { return c.w.Close() }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
