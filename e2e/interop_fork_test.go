//go:build linux

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestInteropTypeScriptSDKFork has the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0, e2e/http/fork.mjs) fork a session of
// `acpbridge serve claude` on the real CLI: initialize advertises fork, an
// unknown id is resource-not-found, a turn on the fork sends the model the
// conversation before it, a turn on the original afterwards does not send
// the fork's, and session/list shows both.
func TestInteropTypeScriptSDKFork(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "fork")
	const (
		first      = "Please remember the code word pelican."
		onFork     = "On the fork: what was the code word?"
		onOriginal = "On the original: go on."
	)
	out := runInteropScript(t, w, "fork.mjs", first, onFork, onOriginal)
	type turn struct {
		Text       string
		StopReason string
	}
	var got struct {
		Advertised  bool
		UnknownCode json.RawMessage
		SessionID   string `json:"sessionId"`
		ForkID      string `json:"forkId"`
		Turns       map[string]turn
		Listed      []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("fork.mjs printed %q: %v", out, err)
	}
	if !got.Advertised {
		t.Error("initialize did not advertise sessionCapabilities.fork")
	}
	if string(got.UnknownCode) != "-32002" {
		t.Errorf("session/fork of an unknown id failed with %s, want -32002", got.UnknownCode)
	}
	if got.ForkID == "" || got.ForkID == got.SessionID {
		t.Fatalf("session/fork answered id %q (the original is %q)", got.ForkID, got.SessionID)
	}
	for i, name := range []string{"first", "fork", "original"} {
		if tr := got.Turns[name]; tr.StopReason != "end_turn" || tr.Text != w.said("text", i) {
			t.Errorf("turn %s: %+v, want end_turn with %q", name, tr, w.said("text", i))
		}
	}
	var forkReq, origReq string
	for _, r := range w.mainRequestsText() {
		switch {
		case strings.Contains(r, onOriginal):
			origReq = r
		case strings.Contains(r, onFork):
			forkReq = r
		}
	}
	if !strings.Contains(forkReq, first) || !strings.Contains(forkReq, w.said("text", 0)) {
		t.Errorf("the fork's turn did not carry the earlier conversation to the model: %q", forkReq)
	}
	if !strings.Contains(origReq, first) || strings.Contains(origReq, onFork) || strings.Contains(origReq, w.said("text", 1)) {
		t.Errorf("the original's turn lost its conversation or carries the fork's: %q", origReq)
	}
	if !slices.Contains(got.Listed, got.SessionID) || !slices.Contains(got.Listed, got.ForkID) {
		t.Errorf("session/list shows %v, want both %s and its fork %s", got.Listed, got.SessionID, got.ForkID)
	}
}
