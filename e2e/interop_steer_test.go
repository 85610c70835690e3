//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestInteropTypeScriptSDKSteering has the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0, e2e/http/steer.mjs) steer a turn of
// `acpbridge serve claude` on the real CLI while its reply streams: the
// steering answer ("injected") and the steered reply reach the client
// before the prompt's answer, and the model was sent the message; with no
// turn running, idleBehavior "promptRequired" runs nothing.
func TestInteropTypeScriptSDKSteering(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "steer")
	out := runInteropScript(t, w, "steer.mjs", steerPrompt, modelserver.SteerText)
	var got struct {
		Advertised bool
		Events     []string
		TextBefore string
		Idle       json.RawMessage
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("steer.mjs printed %q: %v", out, err)
	}
	if !got.Advertised {
		t.Error("initialize did not advertise steering")
	}
	if want := "[text steering:injected text prompt:end_turn]"; fmt.Sprint(got.Events) != want {
		t.Errorf("events in arrival order %v, want %s", got.Events, want)
	}
	if !strings.Contains(got.TextBefore, modelserver.SteeredReply) {
		t.Errorf("before the prompt's answer the client got %q, without the steered reply", got.TextBefore)
	}
	if !jsonSame(got.Idle, `{"outcome":"promptRequired","reason":"noRunningTurn"}`) {
		t.Errorf("idle steering with promptRequired answered %s", got.Idle)
	}
	modelGotSteering(t, w.srv, modelserver.Request.LastUserText)
	if n := len(w.srv.MainRequests()); n != 2 {
		t.Errorf("the model got %d requests, want 2 (the slow reply and the steered one): the idle message ran", n)
	}
}
