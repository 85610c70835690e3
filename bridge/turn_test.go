package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func prompt(sid string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "go"}}}
}

// blockingTurn starts, says so on started, and waits for its ctx.
func blockingTurn(started chan<- struct{}) func(context.Context, *scriptSession, acp.PromptRequest) (acp.StopReason, error) {
	return func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		s.say(ctx, acp.UpdateAgentText("working"))
		started <- struct{}{}
		<-ctx.Done()
		return acp.StopReasonCancelled, nil
	}
}

func TestSecondPromptDuringATurnIsRejected(t *testing.T) {
	started := make(chan struct{}, 1)
	e := startEditor(t, &scriptAdapter{turn: blockingTurn(started)})
	e.initialize()
	sid := e.newSession()
	first := e.call("session/prompt", prompt(sid))
	<-started
	second := e.call("session/prompt", prompt(sid))
	ans, _ := e.answer(second)
	errObj, _ := ans["error"].(map[string]any)
	if errObj == nil || errObj["code"] != float64(-32600) || !strings.Contains(errObj["message"].(string), "a turn is already running") {
		t.Fatalf("second prompt answered %v, want -32600 saying a turn is running", ans)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	res, _ := e.result(first)
	if res["stopReason"] != "cancelled" {
		t.Fatalf("first prompt stopReason = %v, want cancelled", res["stopReason"])
	}
	// The session serves the next turn.
	next := e.call("session/prompt", prompt(sid))
	<-started
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	if res, _ := e.result(next); res["stopReason"] != "cancelled" {
		t.Fatalf("next turn stopReason = %v", res["stopReason"])
	}
}

func TestCancelEndsTheTurnAsAResult(t *testing.T) {
	tests := []struct {
		name string
		// unwind is what the adapter returns once its ctx is cancelled.
		unwind func(ctx context.Context) (acp.StopReason, error)
	}{
		{"adapter returns cancelled", func(context.Context) (acp.StopReason, error) { return acp.StopReasonCancelled, nil }},
		{"adapter returns ctx error", func(ctx context.Context) (acp.StopReason, error) { return "", ctx.Err() }},
		{"adapter returns end_turn", func(context.Context) (acp.StopReason, error) { return acp.StopReasonEndTurn, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			e := startEditor(t, &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
				started <- struct{}{}
				<-ctx.Done()
				return tt.unwind(ctx)
			}})
			e.initialize()
			sid := e.newSession()
			id := e.call("session/prompt", prompt(sid))
			<-started
			e.notify("session/cancel", map[string]any{"sessionId": sid})
			res, _ := e.result(id)
			if res["stopReason"] != "cancelled" {
				t.Fatalf("stopReason = %v, want cancelled", res["stopReason"])
			}
		})
	}
}

func TestCancelWithdrawsPendingPermission(t *testing.T) {
	outcome := make(chan acp.RequestPermissionOutcome, 1)
	e := startEditor(t, &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		res, err := s.c.RequestPermission(ctx, acp.RequestPermissionRequest{
			SessionID: s.id,
			ToolCall:  acp.ToolCallUpdate{ToolCallID: "t1", Title: acp.Ptr("Run ls")},
			Options: []acp.PermissionOption{
				{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionID: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
			},
		})
		if err != nil {
			return "", err
		}
		outcome <- res.Outcome
		return acp.StopReasonCancelled, nil
	}})
	e.initialize()
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))
	req := e.next()
	if req["method"] != "session/request_permission" {
		t.Fatalf("expected a permission request, got %v", req)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	// The adapter sees the cancelled outcome without waiting for the
	// editor...
	if o := <-outcome; o.Cancelled == nil {
		t.Fatalf("adapter got outcome %+v, want cancelled", o)
	}
	// ...the turn ends cancelled, and the bridge withdraws its request
	// from the editor (the spec leaves the order of those two open).
	var answered, withdrawn bool
	for !answered || !withdrawn {
		m := e.next()
		switch {
		case m["method"] == "$/cancel_request":
			jsonEqual(t, m["params"], `{"requestId":`+jsonOf(req["id"])+`}`)
			withdrawn = true
		case m["id"] == float64(id):
			if m["result"].(map[string]any)["stopReason"] != "cancelled" {
				t.Fatalf("prompt answer = %v, want stopReason cancelled", m)
			}
			answered = true
		default:
			t.Fatalf("unexpected frame %v", m)
		}
	}
	// A late answer from the editor to the withdrawn request is harmless.
	e.respond(req["id"], map[string]any{"outcome": map[string]any{"outcome": "cancelled"}})
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1}))
}

func TestCancelRequestAnswersMinus32800(t *testing.T) {
	started := make(chan struct{}, 1)
	e := startEditor(t, &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}})
	e.initialize()
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))
	<-started
	e.notify("$/cancel_request", map[string]any{"requestId": id})
	ans, _ := e.answer(id)
	errObj, _ := ans["error"].(map[string]any)
	if errObj == nil || errObj["code"] != float64(-32800) {
		t.Fatalf("answer = %v, want error -32800", ans)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCancelRightAfterPromptCancelsIt: a session/cancel the editor sends
// right behind its session/prompt cancels that prompt, though the cancel
// is handled in the read loop and the prompt on a goroutine that may not
// have begun its turn yet. The prompt is answered cancelled, and its turn
// sees a cancelled ctx from its start. A request after the cancel (whose
// answer says the read loop is past it) lets an uncancelled turn end
// end_turn, which it must not. Each round races the prompt's goroutine
// against the read loop anew.
func TestCancelRightAfterPromptCancelsIt(t *testing.T) {
	// release, closed once the round's cancel has been read, ends an
	// uncancelled turn; each round has its own.
	var mu sync.Mutex
	release := make(chan struct{})
	e := startEditor(t, &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		mu.Lock()
		r := release
		mu.Unlock()
		select {
		case <-ctx.Done():
			return acp.StopReasonCancelled, nil
		case <-r:
			return acp.StopReasonEndTurn, nil
		}
	}})
	e.initialize()
	sid := e.newSession()
	for round := range 20 {
		pid, probe := e.nextID+1, e.nextID+2
		e.nextID += 2
		lines := []string{
			jsonOf(map[string]any{"jsonrpc": "2.0", "id": pid, "method": "session/prompt", "params": prompt(sid)}),
			jsonOf(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}}),
			jsonOf(map[string]any{"jsonrpc": "2.0", "id": probe, "method": "_probe/nothing", "params": map[string]any{}}),
		}
		for _, l := range lines {
			e.check.ClientFrame([]byte(l))
		}
		if _, err := io.WriteString(e.w, strings.Join(lines, "\n")+"\n"); err != nil {
			t.Fatal(err)
		}
		var stop any
		for got := 0; got < 2; {
			m := e.next()
			switch {
			case m["method"] != nil:
				continue
			case m["id"] == float64(probe):
				mu.Lock()
				close(release)
				mu.Unlock()
			case m["id"] == float64(pid):
				if m["result"] != nil {
					stop = m["result"].(map[string]any)["stopReason"]
				} else {
					stop = m["error"]
				}
			}
			got++
		}
		if stop != "cancelled" {
			t.Fatalf("round %d: the prompt cancelled right behind it answered %v, want stopReason cancelled", round, stop)
		}
		mu.Lock()
		release = make(chan struct{})
		mu.Unlock()
	}
}
