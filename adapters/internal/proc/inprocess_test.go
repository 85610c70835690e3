package proc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// echo copies stdin lines to stdout until EOF.
func echo(_ context.Context, stdin io.Reader, stdout io.Writer) error {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if _, err := io.WriteString(stdout, "echo: "+sc.Text()+"\n"); err != nil {
			return err
		}
	}
	return sc.Err()
}

func TestInProcessEcho(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := proc.InProcess("echo", echo)
		if p.Pid() != 0 || p.StderrTail() != "" {
			t.Errorf("Pid, StderrTail = %d, %q; want 0, empty", p.Pid(), p.StderrTail())
		}
		out := bufio.NewReader(p.Stdout())
		io.WriteString(p.Stdin(), "one\n")
		if line, _ := out.ReadString('\n'); line != "echo: one\n" {
			t.Errorf("got %q", line)
		}
		// Closing stdin is EOF for run, which returns; stdout then ends.
		p.Stdin().Close()
		if rest, err := io.ReadAll(out); err != nil || len(rest) != 0 {
			t.Errorf("after stdin close: %q, %v; want EOF", rest, err)
		}
		if err := p.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		if err := p.Stop(t.Context()); err != nil {
			t.Errorf("Stop after exit = %v", err)
		}
	})
}

func TestInProcessWaitReturnsRunError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		p := proc.InProcess("x", func(context.Context, io.Reader, io.Writer) error { return boom })
		if err := p.Wait(); err != boom {
			t.Errorf("Wait = %v, want boom", err)
		}
		synctest.Wait()
		// Like a dead process: stdout ends and stdin writes fail.
		if _, err := p.Stdout().Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("Stdout after exit: %v, want EOF", err)
		}
		if _, err := io.WriteString(p.Stdin(), "x\n"); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Stdin after exit: %v, want io.ErrClosedPipe", err)
		}
	})
}

func TestInProcessStop(t *testing.T) {
	tests := []struct {
		name    string
		run     func(release <-chan struct{}) func(context.Context, io.Reader, io.Writer) error
		ctxDone bool
		after   time.Duration // when Stop returns
		wantErr string
	}{
		{
			name: "stdin EOF suffices",
			run: func(<-chan struct{}) func(context.Context, io.Reader, io.Writer) error {
				return echo
			},
			after: 0,
		},
		{
			name: "ctx cancelled after the grace period",
			run: func(<-chan struct{}) func(context.Context, io.Reader, io.Writer) error {
				return func(ctx context.Context, _ io.Reader, _ io.Writer) error {
					<-ctx.Done() // ignores stdin
					return ctx.Err()
				}
			},
			after:   proc.DefaultGrace,
			wantErr: context.Canceled.Error(),
		},
		{
			name: "done ctx cancels at once",
			run: func(<-chan struct{}) func(context.Context, io.Reader, io.Writer) error {
				return func(ctx context.Context, _ io.Reader, _ io.Writer) error {
					<-ctx.Done()
					return ctx.Err()
				}
			},
			ctxDone: true,
			after:   0,
			wantErr: context.Canceled.Error(),
		},
		{
			name: "pipes broken when ctx is ignored",
			run: func(<-chan struct{}) func(context.Context, io.Reader, io.Writer) error {
				return func(_ context.Context, _ io.Reader, stdout io.Writer) error {
					_, err := stdout.Write([]byte("nobody reads this\n")) // blocks
					return err
				}
			},
			after:   2 * proc.DefaultGrace,
			wantErr: "in-process agent stopped",
		},
		{
			name: "unresponsive",
			run: func(release <-chan struct{}) func(context.Context, io.Reader, io.Writer) error {
				return func(context.Context, io.Reader, io.Writer) error {
					<-release
					return nil
				}
			},
			after:   3 * proc.DefaultGrace,
			wantErr: "stopping stuck: unresponsive in-process agent",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				defer close(release)
				p := proc.InProcess("stuck", tt.run(release))
				ctx := t.Context()
				if tt.ctxDone {
					c, cancel := context.WithCancel(ctx)
					cancel()
					ctx = c
				}
				start := time.Now()
				err := p.Stop(ctx)
				if d := time.Since(start); d != tt.after {
					t.Errorf("Stop returned after %v, want %v", d, tt.after)
				}
				if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Stop = %v, want %q", err, tt.wantErr)
				}
			})
		})
	}
}
