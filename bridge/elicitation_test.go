package bridge_test

import (
	"context"
	"errors"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// elicitTurn asks the editor one form question and reports the answer.
func elicitTurn(got chan<- acp.CreateElicitationResponse, gotErr chan<- error) func(context.Context, *scriptSession, acp.PromptRequest) (acp.StopReason, error) {
	return func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
		res, err := s.c.CreateElicitation(ctx, acp.CreateElicitationRequest{
			ToolCallID: "t1",
			Mode:       acp.ElicitationModeForm,
			Message:    "Which database?",
			RequestedSchema: acp.ElicitationSchema{Type: "object", Properties: map[string]acp.ElicitationProperty{
				"q1": {Type: "string", OneOf: []acp.EnumOption{{Const: "a", Title: "A"}, {Const: "b", Title: "B"}}},
			}},
		})
		if err != nil {
			gotErr <- err
			return acp.StopReasonEndTurn, nil
		}
		got <- res
		return acp.StopReasonEndTurn, nil
	}
}

// TestElicitationForm sends a form to an editor that advertised form
// elicitation and hands its answer back to the adapter.
func TestElicitationForm(t *testing.T) {
	got, gotErr := make(chan acp.CreateElicitationResponse, 1), make(chan error, 1)
	e := startEditor(t, &scriptAdapter{turn: elicitTurn(got, gotErr)})
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}))
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))
	req := e.next()
	if req["method"] != "elicitation/create" {
		t.Fatalf("expected elicitation/create, got %v", req)
	}
	jsonEqual(t, req["params"], `{"sessionId":`+jsonOf(sid)+`,"toolCallId":"t1","mode":"form","message":"Which database?",
	  "requestedSchema":{"type":"object","properties":{"q1":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}}}`)
	e.respond(req["id"], map[string]any{"action": "accept", "content": map[string]any{"q1": "b"}})
	select {
	case res := <-got:
		if res.Action != acp.ElicitationAccept || res.Content["q1"] != "b" {
			t.Errorf("adapter got %+v", res)
		}
	case err := <-gotErr:
		t.Fatalf("adapter got error %v", err)
	}
	e.result(id)
}

// TestElicitationNeedsTheCapability refuses a form to an editor that did
// not advertise form elicitation, without asking it.
func TestElicitationNeedsTheCapability(t *testing.T) {
	got, gotErr := make(chan acp.CreateElicitationResponse, 1), make(chan error, 1)
	e := startEditor(t, &scriptAdapter{turn: elicitTurn(got, gotErr)})
	e.initialize()
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))
	select {
	case res := <-got:
		t.Fatalf("adapter got %+v, want an error", res)
	case err := <-gotErr:
		if !errors.Is(err, acp.ErrMethodNotFound) {
			t.Errorf("adapter got %v, want method not found", err)
		}
	}
	if res, _ := e.result(id); res["stopReason"] != "end_turn" {
		t.Fatalf("prompt answered %v", res)
	}
}

// TestCancelWithdrawsPendingElicitation withdraws a pending form on
// session/cancel; the adapter gets the cancel action.
func TestCancelWithdrawsPendingElicitation(t *testing.T) {
	got, gotErr := make(chan acp.CreateElicitationResponse, 1), make(chan error, 1)
	e := startEditor(t, &scriptAdapter{turn: elicitTurn(got, gotErr)})
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}))
	sid := e.newSession()
	id := e.call("session/prompt", prompt(sid))
	req := e.next()
	if req["method"] != "elicitation/create" {
		t.Fatalf("expected elicitation/create, got %v", req)
	}
	e.notify("session/cancel", map[string]any{"sessionId": sid})
	select {
	case res := <-got:
		if res.Action != acp.ElicitationCancel {
			t.Errorf("adapter got %+v, want the cancel action", res)
		}
	case err := <-gotErr:
		t.Fatalf("adapter got error %v", err)
	}
	var answered, withdrawn bool
	for !answered || !withdrawn {
		m := e.next()
		switch {
		case m["method"] == "$/cancel_request":
			withdrawn = true
		case m["id"] == float64(id):
			answered = true
		default:
			t.Fatalf("unexpected frame %v", m)
		}
	}
}
