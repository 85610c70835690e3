package bridge_test

import (
	"context"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/auto"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// childAdapter's sessions cancel their children one by one.
type childAdapter struct {
	*scriptAdapter
	cancelled chan acp.SessionID
}

func (a childAdapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	s, err := a.scriptAdapter.NewSession(ctx, req, c)
	if err != nil {
		return nil, err
	}
	return childSession{s.(*scriptSession), a.cancelled}, nil
}

type childSession struct {
	*scriptSession
	cancelled chan acp.SessionID
}

var _ acp.ChildCanceller = childSession{}

func (s childSession) CancelChild(id acp.SessionID) bool {
	s.cancelled <- id
	return id == "kid"
}

// TestChildSessions: an adapter's child session writes its updates and
// permission requests under its own id, in one stream with its parent's,
// and session/cancel of the child reaches the parent session's
// CancelChild without cancelling the parent's turn: served alone, and
// through `auto` (package multi), whose client must make child sessions as
// the bridge's does.
func TestChildSessions(t *testing.T) {
	for _, tt := range []struct {
		name string
		wrap func(childAdapter) bridge.Adapter
	}{
		{"direct", func(a childAdapter) bridge.Adapter { return a }},
		{"auto", func(a childAdapter) bridge.Adapter {
			return auto.New([]auto.Agent{{Name: "script", Title: "Script agent",
				Start: func() (acp.Adapter, error) { return a, nil }}}, auto.Options{})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { testChildSessions(t, tt.wrap) })
	}
}

func testChildSessions(t *testing.T, wrap func(childAdapter) bridge.Adapter) {
	cancelled := make(chan acp.SessionID, 4)
	sa := &scriptAdapter{}
	sa.turn = func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		cc, ok := s.c.(acp.ChildClient)
		if !ok {
			t.Errorf("the session's client %T makes no child sessions", s.c)
			return acp.StopReasonEndTurn, nil
		}
		kid := cc.Child("kid")
		state := func(st acp.SubagentState) {
			_ = s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: acp.SessionUpdate{SubagentUpdate: &acp.SubagentUpdate{
				SessionID: "kid", State: &st,
				Capabilities: &acp.SubagentSessionCapabilities{Cancel: &acp.SessionCancelCapabilities{}},
			}}})
		}
		state(acp.SubagentState{State: acp.SubagentRunning})
		_ = kid.SessionUpdate(ctx, acp.SessionNotification{Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("child says")}}})
		res, err := kid.RequestPermission(ctx, acp.RequestPermissionRequest{
			ToolCall: acp.ToolCallUpdate{ToolCallID: "t1"},
			Options:  []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
		})
		if err != nil || res.Outcome.Selected == nil {
			t.Errorf("child's permission = %+v, %v", res, err)
		}
		select {
		case <-cancelled:
		case <-ctx.Done():
			return acp.StopReasonCancelled, nil
		}
		stop := acp.StopReasonCancelled
		state(acp.SubagentState{State: acp.SubagentIdle, StopReason: &stop})
		return acp.StopReasonEndTurn, nil
	}
	e := startEditorWith(t, wrap(childAdapter{sa, cancelled}), acptest.LoadUnstable(t))
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"subagents": map[string]any{}}}))
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))

	sessionOf := func(m map[string]any) any { return m["params"].(map[string]any)["sessionId"] }
	if m := e.next(); updateKind(m) != "subagent_update" || sessionOf(m) != sid {
		t.Fatalf("first frame %v, want the parent's subagent_update", m)
	}
	if m := e.next(); updateKind(m) != "agent_message_chunk" || sessionOf(m) != "kid" {
		t.Fatalf("second frame %v, want the child's text under its id", m)
	}
	req := e.next()
	if req["method"] != "session/request_permission" || sessionOf(req) != "kid" {
		t.Fatalf("third frame %v, want the child's permission request", req)
	}
	e.respond(req["id"], map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow"}})
	e.notify("session/cancel", map[string]any{"sessionId": "kid"})
	res, before := e.result(id)
	if res["stopReason"] != "end_turn" {
		t.Errorf("the parent's turn ended %v: a child's cancel must not cancel it", res)
	}
	if len(before) != 1 || updateKind(before[0]) != "subagent_update" || sessionOf(before[0]) != sid {
		t.Errorf("frames before the answer %v, want the child's final state on the parent", before)
	}
	// Once the parent is closed its children are forgotten: a cancel
	// naming one reaches nobody.
	e.result(e.call("session/close", map[string]any{"sessionId": sid}))
	e.notify("session/cancel", map[string]any{"sessionId": "kid"})
	e.answer(e.call("session/list", map[string]any{})) // a round trip after the cancel
	select {
	case got := <-cancelled:
		t.Errorf("CancelChild(%s) after the parent closed", got)
	default:
	}
}

// childLoader replays a settled child session in session/load, the way
// an adapter replays the sub-agents a stored session ran.
type childLoader struct {
	loadingAdapter
	cancelled chan acp.SessionID
}

func (a childLoader) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	stop := acp.StopReasonEndTurn
	err := c.SessionUpdate(ctx, acp.SessionNotification{SessionID: req.SessionID, Update: acp.SessionUpdate{
		SubagentUpdate: &acp.SubagentUpdate{SessionID: "kid", State: &acp.SubagentState{State: acp.SubagentIdle, StopReason: &stop}}}})
	if err != nil {
		return nil, err
	}
	err = c.(acp.ChildClient).Child("kid").SessionUpdate(ctx, acp.SessionNotification{SessionID: "kid", Update: acp.SessionUpdate{
		AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("child said")}}})
	if err != nil {
		return nil, err
	}
	s, err := a.loadingAdapter.LoadSession(ctx, req, c)
	if err != nil {
		return nil, err
	}
	return childSession{s.(*scriptSession), a.cancelled}, nil
}

// TestLoadChildSessions: children an adapter replays during session/load
// go out under their own ids before the load's answer (they are
// registered before the session is), and a session/cancel naming one
// reaches the loaded session's CancelChild.
func TestLoadChildSessions(t *testing.T) {
	cancelled := make(chan acp.SessionID, 4)
	e := startEditorWith(t, childLoader{loadingAdapter{&scriptAdapter{}}, cancelled}, acptest.LoadUnstable(t))
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"subagents": map[string]any{}}}))
	_, before := e.result(e.call("session/load", map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}))
	sessionOf := func(m map[string]any) any { return m["params"].(map[string]any)["sessionId"] }
	if len(before) != 2 || updateKind(before[0]) != "subagent_update" || sessionOf(before[0]) != "stored" ||
		updateKind(before[1]) != "agent_message_chunk" || sessionOf(before[1]) != "kid" {
		t.Fatalf("frames before the load's answer %v, want the announcement on the parent, then the child's text under its id", before)
	}
	e.notify("session/cancel", map[string]any{"sessionId": "kid"})
	e.answer(e.call("session/list", map[string]any{})) // a round trip after the cancel
	select {
	case got := <-cancelled:
		if got != "kid" {
			t.Errorf("CancelChild(%s), want kid", got)
		}
	default:
		t.Error("the cancel of the loaded child did not reach its session")
	}
}
