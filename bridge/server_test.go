package bridge_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestInitializeAdvertisesOnlyWhatTheAdapterDoes(t *testing.T) {
	tests := []struct {
		name    string
		adapter func() bridgeAdapter
		want    string
	}{
		{
			name:    "minimal adapter",
			adapter: func() bridgeAdapter { return &scriptAdapter{} },
			want: `{"protocolVersion":1,"agentInfo":{"name":"acpbridge","title":"Script agent","version":"test"},
				"agentCapabilities":{"loadSession":false,
					"promptCapabilities":{"image":true,"audio":false,"embeddedContext":true},
					"mcpCapabilities":{"http":false,"sse":false},
					"sessionCapabilities":{"close":{}}},
				"authMethods":[]}`,
		},
		{
			name:    "load, resume and list",
			adapter: func() bridgeAdapter { return loadingAdapter{&scriptAdapter{}} },
			want: `{"protocolVersion":1,"agentInfo":{"name":"acpbridge","title":"Script agent","version":"test"},
				"agentCapabilities":{"loadSession":true,
					"promptCapabilities":{"image":true,"audio":false,"embeddedContext":true},
					"mcpCapabilities":{"http":false,"sse":false},
					"sessionCapabilities":{"close":{},"list":{},"resume":{}}},
				"authMethods":[]}`,
		},
		{
			name:    "login",
			adapter: func() bridgeAdapter { return &authAdapter{scriptAdapter: &scriptAdapter{}} },
			want: `{"protocolVersion":1,"agentInfo":{"name":"acpbridge","title":"Script agent","version":"test"},
				"agentCapabilities":{"loadSession":false,
					"promptCapabilities":{"image":true,"audio":false,"embeddedContext":true},
					"mcpCapabilities":{"http":false,"sse":false},
					"sessionCapabilities":{"close":{}},"auth":{"logout":{}}},
				"authMethods":[{"id":"login","name":"Log in"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEditor(t, tt.adapter())
			res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
			jsonEqual(t, res, tt.want)
		})
	}
}

func TestInitializeAnswersVersionOne(t *testing.T) {
	// A client that speaks a newer major version gets the agent's latest (1)
	// and decides whether it can go on.
	e := startEditor(t, &scriptAdapter{})
	res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 7}))
	if res["protocolVersion"] != float64(1) {
		t.Fatalf("protocolVersion = %v, want 1", res["protocolVersion"])
	}
}

func TestCommandsFollowTheSessionAnswer(t *testing.T) {
	// ACP: clients drop updates for a session they don't know yet, so
	// available_commands_update, and anything the adapter said while
	// starting, must come after the session/new answer.
	a := &scriptAdapter{
		commands: []acp.AvailableCommand{{Name: "review", Description: "Review the change"}},
		startup: func(s *scriptSession) {
			s.say(context.Background(), acp.UpdateAgentText("warming up"))
		},
	}
	e := startEditor(t, a)
	e.initialize()
	id := e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	_, before := e.result(id)
	if len(before) != 0 {
		t.Fatalf("frames before the session/new answer: %v", before)
	}
	held := e.next()
	if k := updateKind(held); k != "agent_message_chunk" {
		t.Errorf("first update after the answer = %q, want the held agent_message_chunk", k)
	}
	if sid := held["params"].(map[string]any)["sessionId"]; sid != "s1" {
		t.Errorf("held update carries sessionId %q, want the new session's id", sid)
	}
	cmds := e.next()
	if k := updateKind(cmds); k != "available_commands_update" {
		t.Fatalf("second update = %q, want available_commands_update", k)
	}
	jsonEqual(t, cmds["params"].(map[string]any)["update"], `{"sessionUpdate":"available_commands_update",
		"availableCommands":[{"name":"review","description":"Review the change"}]}`)
}

func TestTurnUpdatesPrecedeTheAnswer(t *testing.T) {
	const chunks = 500
	a := &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, req acp.PromptRequest) (acp.StopReason, error) {
		for i := range chunks {
			if err := s.say(ctx, acp.UpdateAgentText(fmt.Sprint(i))); err != nil {
				return "", err
			}
		}
		return acp.StopReasonEndTurn, nil
	}}
	e := startEditor(t, a)
	e.initialize()
	sid := e.newSession()
	res, before := e.result(e.call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "count"}}}))
	if res["stopReason"] != "end_turn" {
		t.Errorf("stopReason = %v", res["stopReason"])
	}
	if len(before) != chunks {
		t.Fatalf("%d updates before the answer, want %d", len(before), chunks)
	}
	for i, m := range before {
		text := m["params"].(map[string]any)["update"].(map[string]any)["content"].(map[string]any)["text"]
		if text != fmt.Sprint(i) {
			t.Fatalf("update %d carries %v: out of order", i, text)
		}
	}
}

// bridgeAdapter is bridge.Adapter, named here so test tables stay short.
type bridgeAdapter = bridge.Adapter
