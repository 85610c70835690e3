package bridge_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// steerAdapter is a scriptAdapter whose running turns take steering
// messages: its sessions' Steer hands the message to the turn through
// steered, and answers ErrNoRunningTurn when no turn of the session waits
// for one.
type steerAdapter struct {
	*scriptAdapter
	mu      sync.Mutex
	running map[acp.SessionID]chan acp.SteeringRequest // guarded by mu
}

func (a *steerAdapter) Info() acp.AgentInfo {
	i := a.scriptAdapter.Info()
	i.Steering = true
	return i
}

func (a *steerAdapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	s, err := a.scriptAdapter.NewSession(ctx, req, c)
	if err != nil {
		return nil, err
	}
	return steerSession{Session: s, a: a}, nil
}

// steerSession is a session of a steerAdapter.
type steerSession struct {
	acp.Session
	a *steerAdapter
}

var _ acp.Steerer = steerSession{}

func (s steerSession) Steer(ctx context.Context, req acp.SteeringRequest) error {
	a := s.a
	a.mu.Lock()
	ch := a.running[s.ID()]
	a.mu.Unlock()
	if ch == nil {
		return fmt.Errorf("steering %s: %w", s.ID(), acp.ErrNoRunningTurn)
	}
	select {
	case ch <- req:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// steeredTurn says "working", then waits for a steering message and
// answers it in the same turn; a cancel ends it.
func (a *steerAdapter) steeredTurn(started chan<- struct{}) func(context.Context, *scriptSession, acp.PromptRequest) (acp.StopReason, error) {
	return func(ctx context.Context, s *scriptSession, req acp.PromptRequest) (acp.StopReason, error) {
		ch := make(chan acp.SteeringRequest)
		a.mu.Lock()
		a.running[s.id] = ch
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			delete(a.running, s.id)
			a.mu.Unlock()
		}()
		s.say(ctx, acp.UpdateAgentText("working on "+req.Prompt[0].Text.Text))
		started <- struct{}{}
		select {
		case m := <-ch:
			s.say(ctx, acp.UpdateAgentText("steered by "+m.Prompt[0].Text.Text))
			return acp.StopReasonEndTurn, nil
		case <-ctx.Done():
			return acp.StopReasonCancelled, nil
		}
	}
}

func newSteerAdapter() *steerAdapter {
	return &steerAdapter{scriptAdapter: &scriptAdapter{}, running: map[acp.SessionID]chan acp.SteeringRequest{}}
}

func steering(sid, text string, meta map[string]any) map[string]any {
	p := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	if meta != nil {
		p["_meta"] = meta
	}
	return p
}

func agentTexts(frames []map[string]any) []string {
	var out []string
	for _, f := range frames {
		if updateKind(f) != "agent_message_chunk" {
			continue
		}
		u := f["params"].(map[string]any)["update"].(map[string]any)
		out = append(out, u["content"].(map[string]any)["text"].(string))
	}
	return out
}

func TestSteeringIsAdvertised(t *testing.T) {
	tests := []struct {
		name    string
		adapter interface{ Info() acp.AgentInfo }
		want    any
	}{
		{"steerer", newSteerAdapter(), map[string]any{"steering": map[string]any{"supported": true}}},
		{"no steerer", &scriptAdapter{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEditor(t, tt.adapter.(acp.Adapter))
			res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
			if fmt.Sprint(res["_meta"]) != fmt.Sprint(tt.want) {
				t.Errorf("initialize _meta = %v, want %v", res["_meta"], tt.want)
			}
		})
	}
}

// TestSteeringJoinsTheRunningTurn: the message is answered "injected" at
// once, and the turn's reply to it reaches the editor before the
// session/prompt answer.
func TestSteeringJoinsTheRunningTurn(t *testing.T) {
	a := newSteerAdapter()
	started := make(chan struct{}, 1)
	a.turn = a.steeredTurn(started)
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	p := e.call("session/prompt", prompt(sid))
	<-started
	st := e.call(acp.MethodSessionSteering, steering(sid, "also this", nil))
	// The turn may take the message and end before the steering answer is
	// written: the two answers come in either order.
	var promptAns, steerAns map[string]any
	var beforePrompt []map[string]any
	for promptAns == nil || steerAns == nil {
		switch m := e.next(); {
		case m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(p):
			promptAns = m
		case m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(st):
			steerAns = m
		case promptAns == nil:
			beforePrompt = append(beforePrompt, m)
		}
	}
	res, _ := steerAns["result"].(map[string]any)
	jsonEqual(t, res, `{"outcome":"injected"}`)
	if res, _ := promptAns["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Fatalf("prompt answered %v", promptAns)
	}
	texts := agentTexts(beforePrompt)
	if fmt.Sprint(texts) != "[working on go steered by also this]" {
		t.Errorf("agent text before the prompt's answer = %q", texts)
	}
	// A plain second prompt during a turn stays refused.
	p = e.call("session/prompt", prompt(sid))
	<-started
	ans, _ := e.answer(e.call("session/prompt", prompt(sid)))
	if code := errCode(ans); code != -32600 {
		t.Errorf("second prompt answered %v, want -32600", ans)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	if res, _ := e.result(p); res["stopReason"] != "cancelled" {
		t.Errorf("cancelled prompt answered %v", res)
	}
}

// TestSteeringAnIdleSession: with no turn running the message starts one
// (its updates are the editor's news of it), or, when the editor asks,
// nothing runs and it gets the message back.
func TestSteeringAnIdleSession(t *testing.T) {
	a := newSteerAdapter()
	ran := make(chan string, 1)
	a.turn = func(ctx context.Context, s *scriptSession, req acp.PromptRequest) (acp.StopReason, error) {
		s.say(ctx, acp.UpdateAgentText("new turn: "+req.Prompt[0].Text.Text))
		ran <- req.Prompt[0].Text.Text
		return acp.StopReasonEndTurn, nil
	}
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()

	res, _ := e.result(e.call(acp.MethodSessionSteering, steering(sid, "later",
		map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}})))
	jsonEqual(t, res, `{"outcome":"promptRequired","reason":"noRunningTurn"}`)
	select {
	case got := <-ran:
		t.Fatalf("a turn ran (%q) for promptRequired", got)
	default:
	}

	res, before := e.result(e.call(acp.MethodSessionSteering, steering(sid, "start it", nil)))
	jsonEqual(t, res, `{"outcome":"startedNewTurn"}`)
	if got := <-ran; got != "start it" {
		t.Errorf("the new turn ran %q", got)
	}
	// The turn runs on its own goroutine from before the answer is
	// written, so its update may come first.
	if len(before) == 0 {
		before = append(before, e.next())
	}
	if got := fmt.Sprint(agentTexts(before)); got != "[new turn: start it]" {
		t.Errorf("the editor got %v for the turn startedNewTurn began", before)
	}
}

func TestSteeringBadInput(t *testing.T) {
	a := newSteerAdapter()
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	tests := []struct {
		name   string
		params any
		code   float64
	}{
		{"unknown session", steering("nope", "hi", nil), -32002},
		{"empty prompt", map[string]any{"sessionId": sid, "prompt": []any{}}, -32602},
		{"no prompt", map[string]any{"sessionId": sid}, -32602},
		{"no session id", map[string]any{"prompt": []any{map[string]any{"type": "text", "text": "x"}}}, -32602},
		{"unknown idleBehavior", steering(sid, "hi", map[string]any{"steering": map[string]any{"idleBehavior": "queue"}}), -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, _ := e.answer(e.call(acp.MethodSessionSteering, tt.params))
			if got := errCode(ans); got != tt.code {
				t.Errorf("answered %v, want code %v", ans, tt.code)
			}
		})
	}
	// An adapter that cannot steer answers method-not-found.
	plain := startEditor(t, &scriptAdapter{})
	plain.initialize()
	psid := plain.newSession()
	if ans, _ := plain.answer(plain.call(acp.MethodSessionSteering, steering(psid, "hi", nil))); errCode(ans) != -32601 {
		t.Errorf("non-steering adapter answered %v, want -32601", ans)
	}
}

// TestSteeringWhileTheTurnIsCancelled: a message sent while the turn winds
// down after session/cancel is not lost in it: it is answered once the
// turn has ended, as for an idle session. The two answers are written by
// their own handlers once the turn is over, in either order.
func TestSteeringWhileTheTurnIsCancelled(t *testing.T) {
	a := newSteerAdapter()
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	var ended atomic.Bool
	a.turn = func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		started <- struct{}{}
		<-ctx.Done()
		<-release // a slow wind-down
		ended.Store(true)
		return acp.StopReasonCancelled, nil
	}
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	p := e.call("session/prompt", prompt(sid))
	<-started
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	st := e.call(acp.MethodSessionSteering, steering(sid, "too late",
		map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}))
	close(release)
	var got []string
	for len(got) < 2 {
		m := e.next()
		switch fmt.Sprint(m["id"]) {
		case fmt.Sprint(p):
			got = append(got, "prompt:"+fmt.Sprint(m["result"]))
		case fmt.Sprint(st):
			if !ended.Load() {
				t.Error("steering answered while the cancelled turn was still winding down")
			}
			got = append(got, "steering:"+fmt.Sprint(m["result"]))
		}
	}
	slices.Sort(got)
	want := "[prompt:map[stopReason:cancelled] steering:map[outcome:promptRequired reason:noRunningTurn]]"
	if fmt.Sprint(got) != want {
		t.Errorf("answers %v, want %v", got, want)
	}
}

// TestSteeredTurnEndsAtShutdown: a turn a steering message started is
// cancelled and waited for when the editor goes away, like any turn.
func TestSteeredTurnEndsAtShutdown(t *testing.T) {
	a := newSteerAdapter()
	ended := make(chan struct{})
	started := make(chan struct{}, 1)
	a.turn = func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		started <- struct{}{}
		<-ctx.Done()
		close(ended)
		return acp.StopReasonCancelled, nil
	}
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	res, _ := e.result(e.call(acp.MethodSessionSteering, steering(sid, "go", nil)))
	jsonEqual(t, res, `{"outcome":"startedNewTurn"}`)
	<-started
	e.w.Close()
	if err := <-e.done; err != nil {
		t.Fatalf("bridge ended with %v", err)
	}
	e.done <- nil // for the cleanup
	select {
	case <-ended:
	default:
		t.Fatal("the bridge returned before the steered turn ended")
	}
}

func errCode(ans map[string]any) float64 {
	e, _ := ans["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}
