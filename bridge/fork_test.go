package bridge_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// forkingAdapter adds session/fork to loadingAdapter: any session it has
// opened, and "stored", can be forked; it records each fork's source.
type forkingAdapter struct {
	loadingAdapter
	mu    sync.Mutex
	forks map[acp.SessionID]acp.SessionID // fork -> source; guarded by mu
}

var _ acp.Forker = (*forkingAdapter)(nil)

func (a *forkingAdapter) ForkSession(_ context.Context, req acp.ForkSessionRequest, c acp.Client) (acp.Session, error) {
	if req.SessionID == "unknown" {
		return nil, fmt.Errorf("%w: no stored session %q", acp.ErrResourceNotFound, req.SessionID)
	}
	s := a.session(acp.SessionID(fmt.Sprintf("fork%d", a.n.Add(1))), c)
	a.mu.Lock()
	a.forks[s.id] = req.SessionID
	a.mu.Unlock()
	return s, nil
}

func (a *forkingAdapter) source(fork string) acp.SessionID {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.forks[acp.SessionID(fork)]
}

func errorCode(ans map[string]any) any {
	e, _ := ans["error"].(map[string]any)
	return e["code"]
}

func TestForkSession(t *testing.T) {
	started := make(chan struct{}, 1)
	sa := &scriptAdapter{}
	a := &forkingAdapter{loadingAdapter: loadingAdapter{sa}, forks: map[acp.SessionID]acp.SessionID{}}
	e := startEditor(t, a)
	res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	jsonEqual(t, res["agentCapabilities"].(map[string]any)["sessionCapabilities"],
		`{"close":{},"fork":{},"list":{},"resume":{}}`)

	sid := e.newSession()
	e.result(e.call("session/prompt", prompt(sid)))
	res, _ = e.result(e.call("session/fork", map[string]any{"sessionId": sid, "cwd": "/tmp"}))
	fork, _ := res["sessionId"].(string)
	if fork == "" || fork == sid {
		t.Fatalf("fork answered %v, want a new sessionId", res)
	}
	if got := a.source(fork); got != acp.SessionID(sid) {
		t.Errorf("the adapter forked %q, want %q", got, sid)
	}
	if res["modes"] == nil || res["configOptions"] == nil {
		t.Errorf("fork answer without the fork's modes and config options: %v", res)
	}
	// Both go on.
	e.result(e.call("session/prompt", prompt(fork)))
	e.result(e.call("session/prompt", prompt(sid)))

	// A stored session that is not open is forked too.
	res, _ = e.result(e.call("session/fork", map[string]any{"sessionId": "stored", "cwd": "/tmp"}))
	if got := a.source(res["sessionId"].(string)); got != "stored" {
		t.Errorf("forked %q, want stored", got)
	}

	// Closing the fork closes what the adapter opened for it, and not the
	// original.
	e.result(e.call("session/close", map[string]any{"sessionId": fork}))
	closed := sa.closedSessions()
	if len(closed) != 1 || closed[0] != acp.SessionID(fork) {
		t.Errorf("closed %v after closing the fork, want [%s]", closed, fork)
	}

	// A session with a turn running is not forked: a clear error, and
	// the turn goes on.
	sa.turn = blockingTurn(started)
	turn := e.call("session/prompt", prompt(sid))
	<-started
	ans, _ := e.answer(e.call("session/fork", map[string]any{"sessionId": sid, "cwd": "/tmp"}))
	if errorCode(ans) != float64(-32600) {
		t.Errorf("fork during a turn: %v, want -32600", ans)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	res, _ = e.result(turn)
	if res["stopReason"] != "cancelled" {
		t.Errorf("the turn ended %v, want cancelled", res)
	}
	res, _ = e.result(e.call("session/fork", map[string]any{"sessionId": sid, "cwd": "/tmp"}))
	if got := a.source(res["sessionId"].(string)); got != acp.SessionID(sid) {
		t.Errorf("fork after the turn forked %q, want %q", got, sid)
	}
}

func TestForkSessionBadInput(t *testing.T) {
	a := &forkingAdapter{loadingAdapter: loadingAdapter{&scriptAdapter{}}, forks: map[acp.SessionID]acp.SessionID{}}
	e := startEditor(t, a)
	e.initialize()
	for _, tt := range []struct {
		name   string
		params map[string]any
		code   float64
	}{
		{"unknown session", map[string]any{"sessionId": "unknown", "cwd": "/tmp"}, -32002},
		{"no cwd", map[string]any{"sessionId": "stored"}, -32602},
		{"relative cwd", map[string]any{"sessionId": "stored", "cwd": "tmp"}, -32602},
		{"no sessionId", map[string]any{"cwd": "/tmp"}, -32602},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ans, _ := e.answer(e.call("session/fork", tt.params))
			if errorCode(ans) != tt.code {
				t.Errorf("got %v, want code %v", ans, tt.code)
			}
		})
	}
}

func TestForkSessionUnsupported(t *testing.T) {
	e := startEditor(t, loadingAdapter{&scriptAdapter{}})
	res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	if _, ok := res["agentCapabilities"].(map[string]any)["sessionCapabilities"].(map[string]any)["fork"]; ok {
		t.Errorf("fork advertised by an adapter without Forker: %v", res)
	}
	ans, _ := e.answer(e.call("session/fork", map[string]any{"sessionId": "stored", "cwd": "/tmp"}))
	if errorCode(ans) != float64(-32601) {
		t.Errorf("fork without Forker: %v, want -32601", ans)
	}
}
