package replay

import (
	"context"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestEditorAnswersOtherwise: the demo recording allowed its first tool.
// An editor that rejects it, or cancels the question, must not see the
// recorded allow played: the tool fails, the turn ends (end_turn after
// saying why, or cancelled), and nothing of the rest of the recorded turn
// (the second tool, its question, the summary) is played.
func TestEditorAnswersOtherwise(t *testing.T) {
	tests := []struct {
		name    string
		outcome acp.RequestPermissionOutcome
		stop    acp.StopReason
		text    string // in the agent's text
	}{
		{"reject", acp.PermissionSelected("reject_once"), acp.StopReasonEndTurn,
			"This replay cannot follow the editor's choice: the recording allowed this tool call"},
		{"reject always", acp.PermissionSelected("reject_always"), acp.StopReasonEndTurn, "cannot follow the editor's choice"},
		{"cancelled", acp.PermissionCancelled(), acp.StopReasonCancelled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, rec := loadDemo(t)
			s := newSeen()
			var toolText []string
			update := func(ctx context.Context, n acp.SessionNotification) error {
				if u := n.Update.ToolCallUpdate; u != nil && u.ToolCallID == "toolu_demo_mkdir" {
					for _, c := range u.Content {
						if c.Content != nil && c.Content.Text != nil {
							toolText = append(toolText, c.Content.Text.Text)
						}
					}
				}
				return s.update(ctx, n)
			}
			answer := func(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
				s.mu.Lock()
				s.permissions = append(s.permissions, r)
				s.mu.Unlock()
				return acp.RequestPermissionResponse{Outcome: tt.outcome}, nil
			}
			sess, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: rec.Meta["cwd"]},
				&acptest.Client{Update: update, Permission: answer})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			stop, err := sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(),
				Prompt: []acp.ContentBlock{acp.TextBlock(demoPrompt)}})
			if err != nil || stop != tt.stop {
				t.Fatalf("Prompt = %q, %v; want %q", stop, err, tt.stop)
			}
			s.mu.Lock()
			if got := s.status["toolu_demo_mkdir"]; got != acp.ToolCallStatusFailed {
				t.Errorf("rejected tool ended %q, want failed", got)
			}
			if _, ok := s.kinds["toolu_demo_write"]; ok || len(s.permissions) != 1 {
				t.Errorf("the recorded turn played on: tools %v, %d permission requests", s.kinds, len(s.permissions))
			}
			text := s.text.String()
			if strings.Contains(text, "Now the program itself") || strings.Contains(text, "Run it with") {
				t.Errorf("agent text %q goes on as recorded", text)
			}
			if !strings.Contains(text, tt.text) || (tt.text != "" && !strings.Contains(strings.Join(toolText, " "), tt.text)) {
				t.Errorf("agent text %q, tool content %q; want both to say %q", text, toolText, tt.text)
			}
			s.mu.Unlock()

			// The next prompt is answered, from the recording's next turn
			// (it has none: the replay says so).
			stop, err = sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(),
				Prompt: []acp.ContentBlock{acp.TextBlock("again")}})
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("next Prompt = %q, %v; want end_turn", stop, err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if !strings.Contains(s.text.String(), "no more turns") {
				t.Errorf("agent text after the next prompt = %q", s.text.String())
			}
		})
	}
}
