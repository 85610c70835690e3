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
	bin := codexenv.Require(t)
	sc, _ := modelserver.Builtin("steer")
	srv := modelserver.New(sc, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: bin, Env: env.Vars, Mode: ModeReadOnly, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		StopGrace: 500 * time.Millisecond, SpareCwd: env.Dir})
	defer func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if !a.Steerable() {
		t.Fatal("codex is not steerable")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	rec := newRecorder()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, rec.client(""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	steer := func(text string) error {
		return a.Steer(ctx, s, acp.SteeringRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
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
