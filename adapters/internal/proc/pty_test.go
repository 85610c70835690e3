//go:build !windows

package proc_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

func requirePTY(t *testing.T) {
	t.Helper()
	requireUnix(t)
	m, s, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	m.Close()
	s.Close()
}

func startPTY(t *testing.T, s proc.Spec) proc.Process {
	t.Helper()
	p, err := proc.StartPTY(testCtx(t), s, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background()) })
	return p
}

// readUntil reads PTY output until it contains want.
func readUntil(t *testing.T, r *bufio.Reader, want string) string {
	t.Helper()
	var got strings.Builder
	for !strings.Contains(got.String(), want) {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("reading for %q: got %q, %v", want, got.String(), err)
		}
		got.WriteByte(b)
	}
	return got.String()
}

func TestPTYOutputEndsWithEOF(t *testing.T) {
	requirePTY(t)
	// An editor may start the bridge without TERM; a TUI needs one.
	t.Setenv("TERM", "restored-after-the-test")
	os.Unsetenv("TERM")
	p := startPTY(t, shSpec(t, `stty size; echo "term=$TERM"; echo oops >&2; exit 0`))
	// EIO from the master once the child side closes must read as EOF.
	out, err := io.ReadAll(p.Stdout())
	if err != nil {
		t.Fatalf("ReadAll = %q, %v; want the output and a clean EOF", out, err)
	}
	for _, want := range []string{"50 200", "term=xterm-256color", "oops"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
	if p.StderrTail() != "" {
		t.Errorf("StderrTail on a pty = %q, want empty", p.StderrTail())
	}
}

// TestPTYAgentIsNotInCI: a bridge run under CI (CI=true, as the project's
// own CI runs it) must not make the terminal agent non-interactive.
func TestPTYAgentIsNotInCI(t *testing.T) {
	requirePTY(t)
	t.Setenv("CI", "true")
	t.Setenv("CONTINUOUS_INTEGRATION", "1")
	t.Setenv("CI_JOB_ID", "7")
	t.Setenv("ACPBRIDGE_KEPT", "yes")
	s := shSpec(t, `echo "ci=${CI-unset} ci2=${CONTINUOUS_INTEGRATION-unset} job=${CI_JOB_ID-unset} kept=$ACPBRIDGE_KEPT mine=$MINE"`)
	s.Env = append(s.Env, "MINE=set")
	out, _ := io.ReadAll(startPTY(t, s).Stdout())
	if want := "ci=unset ci2=unset job=unset kept=yes mine=set"; !strings.Contains(string(out), want) {
		t.Errorf("output %q lacks %q", out, want)
	}
	s = shSpec(t, `echo "ci=${CI-unset}"`)
	s.Env = append(s.Env, "CI=1")
	out, _ = io.ReadAll(startPTY(t, s).Stdout())
	if !strings.Contains(string(out), "ci=1") {
		t.Errorf("output %q: Spec.Env's CI was not passed on", out)
	}
}

func TestPTYStdinAndCloseSendsEOF(t *testing.T) {
	requirePTY(t)
	p := startPTY(t, shSpec(t, `read x; echo "got-$x"; cat; echo cat-done`))
	out := bufio.NewReader(p.Stdout())
	if _, err := io.WriteString(p.Stdin(), "abc\n"); err != nil {
		t.Fatal(err)
	}
	readUntil(t, out, "got-abc")
	// ^D at the start of a line is end of input for cat.
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, out, "cat-done")
	if _, err := io.WriteString(p.Stdin(), "late\n"); err == nil {
		t.Error("write after Close succeeded")
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

func TestPTYStop(t *testing.T) {
	requirePTY(t)
	t.Run("ctrl-c", func(t *testing.T) {
		s := shSpec(t, `echo ready; read x`)
		s.Grace = time.Minute // ^C must do it; no escalation
		p := startPTY(t, s)
		out := bufio.NewReader(p.Stdout())
		readUntil(t, out, "ready")
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, out); close(done) }()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if err := p.Stop(ctx); err == nil || !strings.Contains(err.Error(), "signal: interrupt") {
			t.Errorf("Stop = %v, want the SIGINT exit from ^C", err)
		}
		<-done
		requireGroupGone(t, p.Pid())
	})
	t.Run("escalates when ^C is ignored", func(t *testing.T) {
		p := startPTY(t, shSpec(t, `trap "" INT; echo ready; while :; do sleep 0.05; done`))
		out := bufio.NewReader(p.Stdout())
		readUntil(t, out, "ready")
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, out); close(done) }()
		if err := p.Stop(t.Context()); err == nil || !strings.Contains(err.Error(), "signal: terminated") {
			t.Errorf("Stop = %v, want the SIGTERM exit", err)
		}
		<-done // the reader sees EOF
		requireGroupGone(t, p.Pid())
	})
}
