package claude

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// steerWorld runs the adapter on the real CLI against the model server's
// "steer" scenario: a slow reply, and a reply for a request that holds
// the steering text.
func steerWorld(t *testing.T, client acp.Client) (*Adapter, acp.Session, *modelserver.Server) {
	bin, home, tmp, project := realCLIWorld(t)
	sc, _ := modelserver.Builtin("steer")
	srv := modelserver.New(sc, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:        bin,
		Env:         modelserver.ClaudeEnv(url, home, tmp),
		Logger:      testLogger(t),
		CancelGrace: 20 * time.Second,
		StopGrace:   2 * time.Second,
		ModelCache:  filepath.Join(home, "models.json"),
	})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, client)
	if err != nil {
		t.Fatal(err)
	}
	return a, s, srv
}

func steerRequest(s acp.Session, text string) acp.SteeringRequest {
	return acp.SteeringRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}}
}

// TestRealCLISteering steers a turn of the real CLI while the model's
// reply streams: the message joins that turn, the model's next request
// holds it (checked on the server), and its reply reaches the editor
// before Prompt returns.
func TestRealCLISteering(t *testing.T) {
	if !New(Options{}).Info().Steering {
		t.Fatal("Claude Code's dialect is not steerable")
	}
	c := &collector{status: map[acp.ToolCallID]acp.ToolCallStatus{}}
	streaming := make(chan struct{})
	c.onText = func() {
		select {
		case <-streaming:
		default:
			close(streaming)
		}
	}
	_, s, srv := steerWorld(t, c.client())
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	done := promptStreaming(t, ctx, s, "Tell me something, slowly.", streaming)
	if err := s.(acp.Steerer).Steer(ctx, steerRequest(s, modelserver.SteerText)); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	r := <-done
	if r.err != nil || r.stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", r.stop, r.err)
	}
	c.mu.Lock()
	text := c.text.String()
	c.mu.Unlock()
	if !strings.Contains(text, modelserver.SteeredReply) {
		t.Errorf("the editor got %q before the answer, without the steered reply", text)
	}
	reqs := srv.MainRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1].LastUserText(), modelserver.SteerText) || reqs[len(reqs)-1].Turn != 1 {
		for _, q := range reqs {
			t.Logf("request %d turn %d: %.200q", q.Seq, q.Turn, q.LastUserText())
		}
		t.Fatalf("the model's last request did not hold the steering message")
	}
	// Between turns there is nothing to steer.
	if err := s.(acp.Steerer).Steer(ctx, steerRequest(s, "late")); !errors.Is(err, acp.ErrNoRunningTurn) {
		t.Errorf("Steer between turns = %v, want ErrNoRunningTurn", err)
	}
	// The next turn is a turn of its own.
	stop, err := s.Prompt(ctx, prompt("And now?"))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("next Prompt = %q, %v", stop, err)
	}
}

// TestRealCLISteeringThenCancel cancels a turn right after steering it:
// the turn ends cancelled, the steered message does not run on as a turn
// of its own, and the session serves the next prompt.
func TestRealCLISteeringThenCancel(t *testing.T) {
	c := &collector{status: map[acp.ToolCallID]acp.ToolCallStatus{}}
	streaming := make(chan struct{})
	c.onText = func() {
		select {
		case <-streaming:
		default:
			close(streaming)
		}
	}
	_, s, srv := steerWorld(t, c.client())
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, err := s.Prompt(pctx, prompt("Tell me something, slowly."))
		if err != nil {
			t.Errorf("Prompt: %v", err)
		}
		done <- stop
	}()
	<-streaming
	if err := s.(acp.Steerer).Steer(ctx, steerRequest(s, "Stop that and say hi.")); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	pcancel()
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q", stop)
	}
	n := len(srv.MainRequests())
	stop, err := s.Prompt(ctx, prompt("Never mind."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after the cancel = %q, %v", stop, err)
	}
	reqs := srv.MainRequests()
	if len(reqs) != n+1 || !strings.Contains(reqs[len(reqs)-1].LastUserText(), "Never mind.") {
		for _, q := range reqs {
			t.Logf("request %d turn %d: %.200q", q.Seq, q.Turn, q.LastUserText())
		}
		t.Errorf("after the cancel the CLI made %d model requests, want 1 for the next prompt", len(reqs)-n)
	}
}
