//go:build unix

package native_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestOpencodeCancelledTurns: the real opencode, through the bridge, with
// the editor cancelling a slow answer right behind its prompt and, in a
// second turn, once text streams. Either way the prompt is answered
// "cancelled" (opencode itself answers an early cancel end_turn, with
// usage all zeros), without the zero usage, and well before the answer
// would have ended. The first case is what an editor that cancels at once
// does: the bridge reads the cancel before the prompt's turn has begun.
func TestOpencodeCancelledTurns(t *testing.T) {
	t.Parallel()
	srv := modelserver.New(&modelserver.Scenario{
		Name:     "cancel",
		SideText: "Scripted session",
		Turns: []modelserver.Turn{{Match: "STREAM-SLOWLY", Times: 10, DeltaDelayMS: 200,
			Blocks: []modelserver.Block{{Type: "text", Text: agentenv.SlowText, Deltas: 40}}}},
		Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Understood.")}},
	}, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	ao, env := cliOptions(t, "opencode", url, t.TempDir())
	e := start(t, options{agent: &ao})
	// opencode takes seconds to start on a busy machine: longer waits
	// than the harness's.
	long := func(ch <-chan frame, what string) frame {
		t.Helper()
		select {
		case f := <-ch:
			return f
		case <-time.After(2 * time.Minute):
			t.Fatalf("no answer to %s", what)
			return frame{}
		}
	}
	if f := long(e.request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}), "initialize"); f.Error != nil {
		t.Fatalf("initialize: %+v", f.Error)
	}
	f := long(e.request("session/new", map[string]any{"cwd": env.Dir, "mcpServers": []any{}}), "session/new")
	var opened struct {
		SessionID string `json:"sessionId"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &opened) != nil {
		t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	sid := opened.SessionID
	for _, tt := range []struct {
		name string
		// streaming: cancel once text streams, not right behind the
		// prompt.
		streaming bool
	}{{"right behind the prompt", false}, {"while text streams", true}} {
		before := e.noteCount()
		ans := e.request("session/prompt", prompt(sid, agentenv.SlowPrompt))
		if tt.streaming {
			deadline := time.After(2 * time.Minute)
			for len(chunks(e.notesSince(before))) == 0 {
				select {
				case <-e.noted:
				case <-deadline:
					t.Fatal("no text streamed within 2 minutes")
				}
			}
		}
		e.notify("session/cancel", map[string]any{"sessionId": sid})
		f := long(ans, "the cancelled prompt")
		if got := stopReason(t, f); got != "cancelled" {
			t.Errorf("%s: stopReason %q, want cancelled (answer %s)", tt.name, got, f.Result)
		}
		if strings.Contains(string(f.Result), `"totalTokens":0`) {
			t.Errorf("%s: answer %s carries the zero usage", tt.name, f.Result)
		}
		if got := strings.Join(chunks(e.notesSince(before)), ""); len(got) >= len(agentenv.SlowText) {
			t.Errorf("%s: the whole answer streamed (%d bytes): the cancel was not applied", tt.name, len(got))
		}
		t.Logf("%s: answered %s", tt.name, f.Result)
	}
}
