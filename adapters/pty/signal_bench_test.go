package pty

import (
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// BenchmarkTurnSignal is BenchmarkTurn's turn ended by the fake TUI's
// notify report instead of its idle screen and BEL: what the report path
// costs (the reporter is a process the agent starts, here this test
// binary) against the screen's.
func BenchmarkTurnSignal(b *testing.B) {
	c := newClient(nil)
	// Only the report ends these turns: the idle fallback is far off.
	s := benchSession(b, signalProfile(b, "fallback = \"1m\"\n"), c)
	ctx := b.Context()
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
