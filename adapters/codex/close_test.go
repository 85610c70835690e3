package codex

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// stuckServer answers every request and then never ends a turn; turnStarted
// is closed at the first turn/start.
func stuckServer(turnStarted chan<- struct{}) func(context.Context, io.Reader, io.Writer) error {
	started := false
	return stubAppServer(func(_ context.Context, m stubMsg, _ io.Writer) error {
		if m.Method == mTurnStart && !started {
			started = true
			close(turnStarted)
		}
		return nil
	})
}

// TestCloseEndsTurn: closing a session while its turn runs ends the turn
// (the bridge may close a session whose prompt has not returned).
func TestCloseEndsTurn(t *testing.T) {
	turnStarted := make(chan struct{})
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", stuckServer(turnStarted)), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
		done <- result{stop, err}
	}()
	<-turnStarted
	s.Close()
	select {
	case r := <-done:
		if r.err != nil || r.stop != acp.StopReasonCancelled {
			t.Errorf("Prompt = %q, %v; want cancelled", r.stop, r.err)
		}
	case <-ctx.Done():
		t.Fatal("Prompt still running after Close")
	}
}

// TestCancelHungAppServer: an app-server that answers neither the
// interrupt nor anything after it is stopped once the cancel grace has
// passed, and the turn is answered cancelled; the next prompt would start
// a fresh one and resume the thread.
func TestCancelHungAppServer(t *testing.T) {
	started := make(chan struct{})
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), CancelGrace: 200 * time.Millisecond,
		StopGrace: 100 * time.Millisecond,
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", hungAfterTurn(started)), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	go func() {
		select {
		case <-started:
			pcancel()
		case <-pctx.Done():
		}
	}()
	stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt = %q, %v; want cancelled", stop, err)
	}
	a.mu.Lock()
	srv := a.srv
	a.mu.Unlock()
	select {
	case <-srv.c.Done():
	case <-time.After(5 * time.Second):
		t.Error("the hung app-server is still running 5 s after the cancel")
	}
}

// hungAfterTurn answers until a turn starts, closes started, then reads
// and answers nothing more.
func hungAfterTurn(started chan struct{}) func(context.Context, io.Reader, io.Writer) error {
	return stubAppServer(func(ctx context.Context, m stubMsg, _ io.Writer) error {
		if m.Method != mTurnStart {
			return nil
		}
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
}
