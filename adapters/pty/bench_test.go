package pty

import (
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// BenchmarkTurn is one short turn with the fake TUI, from typing the prompt
// to end_turn: about 10 words streamed at 2 ms each, then the idle screen
// and its BEL. What it adds to ~25 ms of drawing is the bridge's latency
// (the target: turn end seen ≤ 300 ms after the agent is idle).
func BenchmarkTurn(b *testing.B) {
	p, err := FindProfile("faketui", "")
	if err != nil {
		b.Fatal(err)
	}
	c := newClient(nil)
	s := benchSession(b, p, c)
	ctx := b.Context()
	// The first turn includes the start-up.
	if _, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hello")}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
		if err != nil || stop != acp.StopReasonEndTurn {
			b.Fatalf("Prompt = %q, %v", stop, err)
		}
	}
}
