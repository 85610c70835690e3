package replay_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// TestJSONRPCReplayAnswersOtherwise plays recordings whose editor allowed a
// command through the bridge with an editor that rejects it instead: the
// replay does not run the recorded command but fails the tool call, says
// why, and ends the turn normally.
func TestJSONRPCReplayAnswersOtherwise(t *testing.T) {
	v := acptest.Load(t)
	for _, tt := range []struct{ fixture, reject string }{
		{"copilot/tool_allow.txtar", "reject_once"},
		{"codex/command_allow.txtar", "decline"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			fx, err := recording.Load(filepath.Join("..", "..", "fixtures", filepath.FromSlash(tt.fixture)))
			if err != nil {
				t.Fatal(err)
			}
			answers := 0
			for i, m := range fx.Editor {
				var msg map[string]any
				if err := json.Unmarshal(m, &msg); err != nil {
					t.Fatal(err)
				}
				if msg["method"] == nil && msg["result"] != nil {
					answers++
					msg["result"] = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": tt.reject}}
					fx.Editor[i], _ = json.Marshal(msg)
				}
			}
			if answers != 1 {
				t.Fatalf("%d permission answers in the editor section, want 1", answers)
			}
			var frames [][]byte
			synctest.Test(t, func(t *testing.T) { frames = transcript(t, v, fx) })
			var failed, said, ended bool
			for _, f := range frames {
				s := string(f)
				failed = failed || strings.Contains(s, `"status":"failed"`) && strings.Contains(s, "cannot follow the editor's choice")
				said = said || strings.Contains(s, `"agent_message_chunk"`) && strings.Contains(s, "cannot follow the editor's choice")
				ended = ended || bytes.Contains(f, []byte(`"stopReason":"end_turn"`))
			}
			if !failed || !said || !ended {
				t.Errorf("tool failed saying why: %v, agent said it: %v, turn ended end_turn: %v; frames:\n%s",
					failed, said, ended, bytes.Join(frames, []byte("\n")))
			}
		})
	}
}
