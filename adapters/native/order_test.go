package native_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/native"
)

// TestRequestKeepsItsPlace: a notification the agent writes after a
// request of its own reaches the editor after that request. The agent
// ("interleave") asks for permission and, without waiting, sends a chunk.
// The hook holds back the goroutine that waits for the editor's answer
// until the editor has the chunk: the order must not depend on when that
// goroutine runs, as it did when the request was written from there. The
// agent's stream is not held up either: the chunk arrives while the
// question is unanswered.
func TestRequestKeepsItsPlace(t *testing.T) {
	seen := make(chan struct{}) // closed once the editor has the chunk
	hook := func() {
		select {
		case <-seen:
		case <-time.After(wait):
		}
	}
	e := start(t, options{
		adapt: func(o native.Options) native.Options { return native.WithServeHook(o, hook) },
		answer: func(method string, params json.RawMessage) (any, error) {
			return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow"}}, nil
		},
	})
	sid := e.open(nil)
	before := e.noteCount()
	res := e.request("session/prompt", prompt(sid, "interleave"))
	e.waitNote(before, func(f frame) bool { return last(chunks([]frame{f})) == "asked" })
	close(seen)
	if r := stopReason(t, e.await(res, "session/prompt")); r != "end_turn" {
		t.Fatalf("stop reason %q", r)
	}
	e.mu.Lock()
	requests := append([]frame(nil), e.asked...)
	e.mu.Unlock()
	if len(requests) != 1 || requests[0].Method != "session/request_permission" {
		t.Fatalf("requests %+v", requests)
	}
	if got := chunks(e.notesSince(before)); len(got) != 2 || got[0] != "asked" || got[1] != "chose allow" {
		t.Errorf("chunks %q", got)
	}
	for i, f := range e.notesSince(0) {
		if last(chunks([]frame{f})) == "asked" && requests[0].notesBefore > i {
			t.Errorf("the editor had the chunk the agent wrote after its permission request before that request")
		}
	}
}
