//go:build linux

package pty

import (
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// BenchmarkClaudeTUITurn is a one-line text turn on the real Claude Code
// TUI, ended by the claude profile's Stop hook report (hooks) beside the
// same profile without its [signal] section (screen), which ends the turn
// once the idle screen has been quiet. The model and the TUI take the same
// time in both: the difference is the turn's end.
func BenchmarkClaudeTUITurn(b *testing.B) {
	builtin, err := FindProfile("claude", "")
	if err != nil {
		b.Fatal(err)
	}
	screen := *builtin
	screen.Signal = nil
	for _, bb := range []struct {
		name string
		p    *Profile
	}{{"screen", &screen}, {"hooks", builtin}} {
		b.Run(bb.name, func(b *testing.B) {
			answers := make(chan string, 1)
			answers <- "Yes, I trust this folder"
			c := claudeClient(answers)
			w := startClaudeTUI(b, &modelserver.Scenario{Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Hello from Claude.")}}}, bb.p, c)
			turn := func() {
				c.reset()
				stop, err := w.s.Prompt(b.Context(), acp.PromptRequest{SessionID: w.s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("Say hello.")}})
				if err != nil || stop != acp.StopReasonEndTurn || c.text() != "Hello from Claude." {
					b.Fatalf("Prompt = %q, %v, reply %q; want end_turn and the model's text", stop, err, c.text())
				}
			}
			turn() // the start-up and the trust dialog
			b.ResetTimer()
			for b.Loop() {
				turn()
			}
		})
	}
}
