//go:build !windows

package proc_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// requireUnix skips tests that need Unix processes, signals and /bin/sh.
func requireUnix(t *testing.T) {
	t.Helper()
	switch runtime.GOOS {
	case "windows", "js", "wasip1", "plan9", "ios", "android":
		t.Skipf("process groups are not supported on %s", runtime.GOOS)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// testCtx bounds a test's processes: when it ends, Start's ctx kills the
// group, so a hung test turns into a failure instead of a stuck run.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// syncBuffer is a bytes.Buffer safe for the logger's writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func shSpec(t *testing.T, script string) proc.Spec {
	return proc.Spec{
		Name:   "fake",
		Path:   "sh",
		Args:   []string{"-c", script},
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel),
		Grace:  200 * time.Millisecond,
	}
}

func start(t *testing.T, s proc.Spec) proc.Process {
	t.Helper()
	p, err := proc.Start(testCtx(t), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background()) })
	return p
}

// readLine reads one line of the process's output.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading stdout: %q, %v", line, err)
	}
	return strings.TrimRight(line, "\r\n")
}

// requireGroupGone checks that no process of group pgid is left. Killed
// grandchildren are reparented to init and may linger as zombies until it
// reaps them, so a zombie counts as gone.
func requireGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return
	}
	if proc.GroupAlive(pgid) {
		t.Fatalf("process group %d still has live members", pgid)
	}
}

func requirePidGone(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return // gone, or no /proc; the group check covers it
	}
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z' {
		t.Fatalf("process %d still runs: %s", pid, stat)
	}
}

func TestStartOwnGroup(t *testing.T) {
	requireUnix(t)
	p := start(t, shSpec(t, "echo ready; read x; exit 0"))
	out := bufio.NewReader(p.Stdout())
	readLine(t, out)
	pgid, err := syscall.Getpgid(p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if pgid != p.Pid() || pgid == syscall.Getpgrp() {
		t.Errorf("child pgid = %d, pid %d, ours %d; want the child to lead its own group", pgid, p.Pid(), syscall.Getpgrp())
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Errorf("Stop after stdin EOF = %v, want nil", err)
	}
}

func TestStopKillsGrandchildren(t *testing.T) {
	requireUnix(t)
	// The foreground sleep ignores stdin EOF; so does the background one.
	p := start(t, shSpec(t, "sleep 1000 & echo $!; sleep 1000"))
	grandchild, err := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	err = p.Stop(t.Context())
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "fake exited: signal: terminated") {
		t.Errorf("Stop = %v, want the SIGTERM exit", err)
	}
	requireGroupGone(t, p.Pid())
	requirePidGone(t, grandchild)
	if err2 := p.Wait(); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("Wait = %v, want Stop's %v", err2, err)
	}
}

// The leader exits on stdin EOF but leaves a grandchild that ignores
// SIGTERM; it still must not outlive Stop.
func TestStopReapsLeftoversIgnoringSIGTERM(t *testing.T) {
	requireUnix(t)
	// The background subshell prints its own pid (its child's $PPID; sh has
	// no $BASHPID) and becomes the sleep.
	p := start(t, shSpec(t, `(trap "" TERM; echo $(exec sh -c 'echo $PPID'); exec sleep 1000) & read x; exit 0`))
	grandchild, err := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Errorf("Stop = %v, want nil (the leader exited 0)", err)
	}
	requireGroupGone(t, p.Pid())
	requirePidGone(t, grandchild)
}

func TestChildSurvivingSIGTERMGetsSIGKILL(t *testing.T) {
	requireUnix(t)
	p := start(t, shSpec(t, `trap 'echo got-term' TERM; echo ready; while :; do sleep 0.05; done`))
	out := bufio.NewReader(p.Stdout())
	if got := readLine(t, out); got != "ready" {
		t.Fatalf("first line %q", got)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(t.Context()) }()
	if got := readLine(t, out); got != "got-term" {
		t.Errorf("after SIGTERM: %q, want got-term", got)
	}
	err := <-stopped
	if err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Stop = %v, want the SIGKILL exit", err)
	}
	requireGroupGone(t, p.Pid())
}

func TestStopContextDoneGoesStraightToSIGKILL(t *testing.T) {
	requireUnix(t)
	s := shSpec(t, `trap 'echo got-term' TERM; echo ready; while :; do sleep 0.05; done`)
	s.Grace = time.Minute
	p := start(t, s)
	readLine(t, bufio.NewReader(p.Stdout()))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Stop(ctx); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Stop(done ctx) = %v, want the SIGKILL exit", err)
	}
}

func TestExitErrorCarriesStderrTail(t *testing.T) {
	requireUnix(t)
	var logs syncBuffer
	s := shSpec(t, `echo first >&2; printf 'not logged in\r\n' >&2; printf partial >&2; exit 3`)
	s.Logger = zerolog.New(&logs).Level(zerolog.DebugLevel)
	p := start(t, s)
	io.Copy(io.Discard, p.Stdout())
	err := p.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait = %v, want exit status 3", err)
	}
	if want := "fake exited: exit status 3: first\nnot logged in\r\npartial"; err.Error() != want {
		t.Errorf("Wait = %q\nwant   %q", err, want)
	}
	if got := p.StderrTail(); got != "first\nnot logged in\r\npartial" {
		t.Errorf("StderrTail = %q", got)
	}
	pid := `"pid":` + strconv.Itoa(p.Pid())
	for _, msg := range []string{`"message":"first"`, `"message":"not logged in"`, `"message":"partial"`} {
		found := false
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, msg) && strings.Contains(line, pid) && strings.Contains(line, `"adapter":"fake"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no debug log line with %s, %s and the adapter in:\n%s", msg, pid, logs.String())
		}
	}
}

func TestStderrTailKeepsTheEnd(t *testing.T) {
	requireUnix(t)
	// 300 lines of 40 bytes: 12,000 bytes, more than the 8 KiB kept.
	p := start(t, shSpec(t, `i=0; while [ $i -lt 300 ]; do printf 'line %035d\n' $i >&2; i=$((i+1)); done; exit 1`))
	io.Copy(io.Discard, p.Stdout())
	p.Wait()
	tail := p.StderrTail()
	if len(tail) > 8<<10 || len(tail) < 8<<10-40 {
		t.Errorf("tail is %d bytes, want just under 8 KiB", len(tail))
	}
	if !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 00000000000000000000000000000000299\n") {
		t.Errorf("tail does not run from a line start to the last line: %q ... %q", tail[:20], tail[len(tail)-20:])
	}
}

func TestStdoutEOFAfterExit(t *testing.T) {
	requireUnix(t)
	t.Run("plain", func(t *testing.T) {
		p := start(t, shSpec(t, "echo hello; echo world"))
		out, err := io.ReadAll(p.Stdout())
		if err != nil || string(out) != "hello\nworld\n" {
			t.Errorf("ReadAll = %q, %v", out, err)
		}
		if err := p.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
	})
	t.Run("a grandchild holds stdout", func(t *testing.T) {
		// The leader exits at once; the background sleep keeps the pipe
		// open until the group is cleaned up.
		p := start(t, shSpec(t, "sleep 1000 & echo $!"))
		out, err := io.ReadAll(p.Stdout())
		if err != nil {
			t.Fatalf("ReadAll = %q, %v", out, err)
		}
		grandchild, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		if err := p.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		requireGroupGone(t, p.Pid())
		requirePidGone(t, grandchild)
	})
}

func TestStartContextKillsGroup(t *testing.T) {
	requireUnix(t)
	ctx, cancel := context.WithCancel(t.Context())
	p, err := proc.Start(ctx, shSpec(t, "sleep 1000 & echo $!; sleep 1000"))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _ := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
	cancel()
	if err := p.Wait(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Wait = %v, want killed", err)
	}
	requireGroupGone(t, p.Pid())
	requirePidGone(t, grandchild)
	p.Stop(context.Background())
}

func TestStartEnvDirAndErrors(t *testing.T) {
	requireUnix(t)
	dir := t.TempDir()
	s := shSpec(t, `echo "$ACPBRIDGE_TEST_VAR"; pwd; cat`)
	s.Env = []string{"ACPBRIDGE_TEST_VAR=from-spec"}
	s.Dir = dir
	p := start(t, s)
	if _, err := io.WriteString(p.Stdin(), "echoed\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin().Close()
	out, _ := io.ReadAll(p.Stdout())
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); len(got) != 3 || got[0] != "from-spec" || (got[1] != dir && got[1] != real) || got[2] != "echoed" {
		t.Errorf("output %q", out)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}

	_, err := proc.Start(t.Context(), proc.Spec{Path: filepath.Join(dir, "no-such-agent")})
	if err == nil || !strings.Contains(err.Error(), "starting no-such-agent") {
		t.Errorf("Start(missing) = %v", err)
	}
}

// A stopped agent (SIGSTOP) holds SIGTERM until it is continued; Stop
// continues it, so the agent gets to handle SIGTERM instead of waiting out
// every grace period until SIGKILL.
func TestStopContinuesStoppedAgent(t *testing.T) {
	requireUnix(t)
	p := start(t, shSpec(t, `trap 'exit 0' TERM; echo ready; kill -STOP $$; while :; do sleep 0.05; done`))
	readLine(t, bufio.NewReader(p.Stdout()))
	if err := p.Stop(t.Context()); err != nil {
		t.Errorf("Stop = %v, want nil: the continued agent handles SIGTERM and exits 0", err)
	}
}
