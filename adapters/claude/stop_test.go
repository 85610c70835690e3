//go:build !windows

package claude

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// Fake CLIs as shell scripts: these tests need a real process to stop,
// signal and time out on.
const (
	// answerInit answers the initialize control request on stdin.
	answerInit = `IFS= read -r line
id=$(printf '%s\n' "$line" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')
printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{"commands":[],"models":[]}}}\n' "$id"
`
	// hangsMidTurn starts a tool call, then stops itself (SIGSTOP): it
	// takes no interrupt and no SIGTERM, only SIGKILL.
	hangsMidTurn = answerInit + `IFS= read -r line
printf '%s\n' '{"type":"system","subtype":"session_state_changed","state":"running"}'
printf '%s\n' '{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}'
kill -STOP $$
cat >/dev/null
`
	// neverAnswers reads its input and answers nothing, initialize included.
	neverAnswers = `cat >/dev/null
`
)

// scriptCLI writes a fake CLI running body and returns its path.
func scriptCLI(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no shell scripts on windows")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh: %v", err)
	}
	path := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(path, []byte("#!"+sh+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// osLauncher starts the real process (proc.Start) and keeps it for the test.
type osLauncher struct {
	mu    sync.Mutex
	procs []proc.Process
	// started, if set, receives each process (it must be buffered enough).
	started chan proc.Process
}

func (l *osLauncher) launch(ctx context.Context, s proc.Spec) (proc.Process, error) {
	p, err := proc.Start(ctx, s)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	if l.started != nil {
		l.started <- p
	}
	return p, nil
}

// requireExited checks that every process launched has exited (proc's own
// tests check that its group goes with it).
func (l *osLauncher) requireExited(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.procs) == 0 {
		t.Fatal("no process was started: the test proves nothing")
	}
	for _, p := range l.procs {
		done := make(chan struct{})
		go func() {
			p.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("process %d still runs", p.Pid())
		}
	}
}

func osAdapter(t *testing.T, path string, l *osLauncher, opts Options) *Adapter {
	opts.Path = path
	opts.Launch = l.launch
	opts.NewSessionID = func() string { return testSessionID }
	opts.Logger = testLogger(t)
	a := New(opts)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// The issue: a hung (SIGSTOPped) CLI made session/cancel take 11 s to be
// answered. The answer comes within 2 s, nothing of the turn follows it,
// and the process is still stopped, after the answer.
func TestCancelAnswersPromptlyWhenCLIHangs(t *testing.T) {
	l := &osLauncher{}
	a := osAdapter(t, scriptCLI(t, hangsMidTurn), l, Options{StopGrace: 500 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var mu sync.Mutex
	var cancelledAt time.Time
	answered, late := false, 0
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		mu.Lock()
		defer mu.Unlock()
		if answered {
			late++
		}
		if n.Update.ToolCall != nil && cancelledAt.IsZero() {
			cancelledAt = time.Now()
			cancel()
		}
		return nil
	}}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, client)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := s.Prompt(ctx, prompt("run it"))
	mu.Lock()
	answered = true
	took := time.Since(cancelledAt)
	mu.Unlock()
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q, %v; want cancelled, nil", stop, err)
	}
	if took > 2*time.Second {
		t.Errorf("Prompt answered %v after the cancel, want within 2s", took.Round(time.Millisecond))
	}
	// The stop goes on after the answer, without Close (which would kill
	// the process anyway).
	l.requireExited(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if late > 0 {
		t.Errorf("%d updates of the cancelled turn were sent after its answer", late)
	}
}

// A CLI that starts but never answers initialize used to hang the prompt
// forever: the wait is bounded, the CLI stopped, and the error names the
// CLI, its path and the limit.
func TestStartTimeoutNamesCLI(t *testing.T) {
	l := &osLauncher{}
	path := scriptCLI(t, neverAnswers)
	a := osAdapter(t, path, l, Options{StartTimeout: 300 * time.Millisecond, StopGrace: 100 * time.Millisecond})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	// The test's own bound, far above the limit: without one, the prompt
	// waits for as long as the CLI hangs.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stop, err := s.Prompt(ctx, prompt("hi"))
	if err == nil {
		t.Fatalf("Prompt = %q, nil against a CLI that never answers initialize; want the start-up error", stop)
	}
	for _, want := range []string{"claude", path, "300ms", "initialize"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Prompt error %q does not mention %q", err, want)
		}
	}
	if !errors.Is(err, acp.ErrInternal) {
		t.Errorf("Prompt error %v is not an internal error", err)
	}
	l.requireExited(t)
}

// session/cancel during the wait for initialize ends the prompt at once,
// "cancelled", and stops the process without waiting for Close.
func TestCancelDuringStartStopsCLI(t *testing.T) {
	l := &osLauncher{started: make(chan proc.Process, 2)}
	a := osAdapter(t, scriptCLI(t, neverAnswers), l, Options{StartTimeout: time.Hour, StopGrace: 100 * time.Millisecond})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var cancelledAt time.Time
	go func() {
		<-l.started
		cancelledAt = time.Now()
		cancel()
	}()
	stop, err := s.Prompt(ctx, prompt("hi"))
	took := time.Since(cancelledAt)
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt cancelled during start = %q, %v; want cancelled, nil", stop, err)
	}
	if took > 2*time.Second {
		t.Errorf("Prompt answered %v after the cancel, want at once", took.Round(time.Millisecond))
	}
	// Checked before Close, which would stop the process anyway.
	l.requireExited(t)
}
