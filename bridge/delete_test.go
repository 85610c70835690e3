package bridge_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// deletingAdapter adds session/delete to loadingAdapter. It records, for
// each deletion, which sessions had been closed by then.
type deletingAdapter struct {
	loadingAdapter
	mu      sync.Mutex
	deleted map[acp.SessionID][]acp.SessionID // id -> closed sessions at the time; guarded by mu
}

func (a *deletingAdapter) DeleteSession(_ context.Context, req acp.DeleteSessionRequest) error {
	if req.SessionID == "unknown" {
		return fmt.Errorf("%w: no stored session %q", acp.ErrResourceNotFound, req.SessionID)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deleted[req.SessionID] = a.closedSessions()
	return nil
}

func TestDeleteSession(t *testing.T) {
	a := &deletingAdapter{loadingAdapter: loadingAdapter{&scriptAdapter{}}, deleted: map[acp.SessionID][]acp.SessionID{}}
	e := startEditor(t, a)
	res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	jsonEqual(t, res["agentCapabilities"].(map[string]any)["sessionCapabilities"],
		`{"close":{},"delete":{},"list":{},"resume":{}}`)

	sid := e.newSession()
	res, _ = e.result(e.call("session/delete", map[string]any{"sessionId": sid}))
	jsonEqual(t, res, `{}`)
	a.mu.Lock()
	closedFirst := slices.Contains(a.deleted[acp.SessionID(sid)], acp.SessionID(sid))
	a.mu.Unlock()
	if !closedFirst {
		t.Errorf("session %s was deleted while still open", sid)
	}
	ans, _ := e.answer(e.call("session/prompt", prompt(sid)))
	if code := ans["error"].(map[string]any)["code"]; code != float64(-32002) {
		t.Errorf("prompt after delete: %v, want -32002", ans)
	}

	// A stored session that is not open is deleted without a close.
	e.result(e.call("session/delete", map[string]any{"sessionId": "stored"}))
	ans, _ = e.answer(e.call("session/delete", map[string]any{"sessionId": "unknown"}))
	if code := ans["error"].(map[string]any)["code"]; code != float64(-32002) {
		t.Errorf("delete of an unknown session: %v, want -32002", ans)
	}
}

func TestDeleteSessionUnsupported(t *testing.T) {
	e := startEditor(t, loadingAdapter{&scriptAdapter{}})
	e.initialize()
	ans, _ := e.answer(e.call("session/delete", map[string]any{"sessionId": "stored"}))
	if code := ans["error"].(map[string]any)["code"]; code != float64(-32601) {
		t.Errorf("delete without Deleter: %v, want -32601", ans)
	}
}
