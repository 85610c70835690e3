package pty

import (
	"regexp"
	"strings"
	"testing"
)

// The done line counts only below the echo of this turn's prompt. The
// history above keeps the done line of an earlier turn (Codex's
// "■ Conversation interrupted" after a rejected command), and after an
// interrupt Codex clears and rewrites its lines: a frame caught half
// rewritten showed that old line with no echo at all, the turn's cancel
// took the agent as back at idle while it was still streaming, and the
// next prompt was queued behind the interrupted turn.
func TestDoneShownOnlyBelowTheEcho(t *testing.T) {
	s := &session{p: &Profile{Signal: &Signal{Done: Pattern{regexp.MustCompile(`^■ `)}}}}
	base := []string{
		"› run declined",
		"✗ You canceled the request to run touch declined-file",
		"■ Conversation interrupted - use /feedback if something went wrong",
		"",
	}
	tr := &turn{s: s, prompt: "stream slowly", rawBase: base}
	tests := []struct {
		name   string
		screen []string
		want   bool
	}{
		{"streaming", append(base[:3:3], "", "› stream slowly", "", "• slow words", "", "› Ask Codex to do anything"), false},
		{"half rewritten, no echo", []string{"■ Conversation", "", "›", "", "•", "", "› Ask Codex to do anything"}, false},
		{"interrupted", append(base[:3:3], "", "› stream slowly", "", "• slow words", "",
			"■ Conversation interrupted - use /feedback if something went wrong", "", "› Ask Codex to do anything"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tr.doneShown(view{text: strings.Join(tt.screen, "\n")}); got != tt.want {
				t.Errorf("doneShown = %v, want %v", got, tt.want)
			}
		})
	}
}
