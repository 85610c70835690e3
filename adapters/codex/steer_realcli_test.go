package codex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestRealCodexSteering steers a turn of the real Codex while the model's
// reply streams: turn/steer takes the message into the turn, the model's
// next request holds it (checked on the server), and its reply reaches
// the editor before Prompt returns.
func TestRealCodexSteering(t *testing.T) {
	a, s, srv, rec := codexSteerWorld(t)
	if !a.Info().Steering {
		t.Fatal("codex is not steerable")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	steer := func(text string) error {
		return s.(acp.Steerer).Steer(ctx, acp.SteeringRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	}
	if err := steer("nothing runs"); !errors.Is(err, acp.ErrNoRunningTurn) {
		t.Errorf("Steer before any turn = %v, want ErrNoRunningTurn", err)
	}
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("Tell me something, slowly.")}})
		done <- result{stop, err}
	}()
	select {
	case <-rec.first:
	case r := <-done:
		t.Fatalf("the turn ended (%v) before it streamed", r)
	}
	if err := steer(modelserver.SteerText); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	r := <-done
	if r.err != nil || r.stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", r.stop, r.err)
	}
	if text := rec.text(false); !strings.Contains(text, modelserver.SteeredReply) {
		t.Errorf("the editor got %q before the answer, without the steered reply", text)
	}
	reqs := srv.MainRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1].UserText(), modelserver.SteerText) || reqs[len(reqs)-1].Turn != 1 {
		for _, q := range reqs {
			t.Logf("request %d turn %d: %.200q", q.Seq, q.Turn, q.UserText())
		}
		t.Fatal("the model's last request did not hold the steering message")
	}
	if err := steer("late"); !errors.Is(err, acp.ErrNoRunningTurn) {
		t.Errorf("Steer after the turn = %v, want ErrNoRunningTurn", err)
	}
}

// codexSteerWorld runs the adapter on the real Codex against the model
// server's "steer" scenario (a slow reply, and a reply for a request that
// holds the steering text) and opens a session; the test's cleanup closes
// both.
func codexSteerWorld(t *testing.T) (*Adapter, acp.Session, *modelserver.Server, *recorder) {
	t.Helper()
	bin := codexenv.Require(t)
	sc, _ := modelserver.Builtin("steer")
	srv := modelserver.New(sc, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: bin, Env: env.Vars, Mode: ModeReadOnly, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		StopGrace: 500 * time.Millisecond, SpareCwd: env.Dir})
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	rec := newRecorder()
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: env.Dir}, rec.client(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return a, s, srv, rec
}

// strayWait is how long TestRealCodexSteeringThenCancel watches for model
// requests nobody asked for once the last turn has ended.
const strayWait = 1500 * time.Millisecond

// TestRealCodexSteeringThenCancel cancels a turn of the real Codex right
// after steering it: the turn ends cancelled, the steered message does not
// run later as a turn of its own (no model request holds it, and nothing
// asks the model anything once the turns are over), and the session serves
// the next prompt.
func TestRealCodexSteeringThenCancel(t *testing.T) {
	_, s, srv, rec := codexSteerWorld(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("Tell me something, slowly.")}})
		done <- result{stop, err}
	}()
	select {
	case <-rec.first:
	case r := <-done:
		t.Fatalf("the turn ended (%v) before it streamed", r)
	}
	if err := s.(acp.Steerer).Steer(ctx, acp.SteeringRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(modelserver.SteerText)}}); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	pcancel()
	if r := <-done; r.err != nil || r.stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q, %v", r.stop, r.err)
	}
	cancelled := rec.text(false)
	n := len(srv.MainRequests())
	stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("Never mind.")}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after the cancel = %q, %v", stop, err)
	}
	// A stray turn would ask the model after the last answer; give it
	// the time to.
	time.Sleep(strayWait)
	reqs := srv.MainRequests()
	stray := len(reqs) != n+1 || !strings.Contains(reqs[len(reqs)-1].UserText(), "Never mind.")
	for _, q := range reqs[n:] {
		if strings.Contains(q.UserText(), modelserver.SteerText) {
			stray = true
		}
	}
	if stray {
		for _, q := range reqs {
			t.Logf("request %d turn %d: %.200q", q.Seq, q.Turn, q.UserText())
		}
		t.Errorf("after the cancel Codex made %d model requests, want 1, for the next prompt", len(reqs)-n)
	}
	if after := strings.TrimPrefix(rec.text(false), cancelled); strings.Contains(after, modelserver.SteeredReply) {
		t.Errorf("the steered message was answered after its turn was cancelled: %q", after)
	}
}
