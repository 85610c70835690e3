package claude

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// subagentLog keeps what an editor without the subagents capability was
// sent during a turn with a sub-agent.
type subagentLog struct {
	mu      sync.Mutex
	text    strings.Builder                     // the parent's agent text
	calls   map[acp.ToolCallID]map[string]any   // tool calls, the latest of each field
	history map[acp.ToolCallID][]map[string]any // every update of each call
	asked   []acp.RequestPermissionRequest
}

func newSubagentLog() *subagentLog {
	return &subagentLog{calls: map[acp.ToolCallID]map[string]any{}, history: map[acp.ToolCallID][]map[string]any{}}
}

func (l *subagentLog) client(t *testing.T) *acptest.Client {
	v := acptest.Load(t)
	return &acptest.Client{
		Update: func(_ context.Context, n acp.SessionNotification) error {
			raw, err := json.Marshal(n)
			if err != nil {
				t.Error(err)
			}
			if err := v.Validate("SessionNotification", raw); err != nil {
				t.Errorf("update not in the schema: %v\n%s", err, raw)
			}
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			u, _ := m["update"].(map[string]any)
			l.mu.Lock()
			defer l.mu.Unlock()
			switch u["sessionUpdate"] {
			case "agent_message_chunk":
				l.text.WriteString(n.Update.AgentMessageChunk.Content.Text.Text)
			case "tool_call", "tool_call_update":
				id := acp.ToolCallID(u["toolCallId"].(string))
				if l.calls[id] == nil {
					l.calls[id] = map[string]any{}
				}
				for k, val := range u {
					l.calls[id][k] = val
				}
				l.history[id] = append(l.history[id], u)
			}
			return nil
		},
		Permission: func(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			l.mu.Lock()
			l.asked = append(l.asked, r)
			l.mu.Unlock()
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
		},
	}
}

// parentOfCall is a tool call's _meta.claudeCode.parentToolUseId.
func parentOfCall(c map[string]any) string {
	meta, _ := c["_meta"].(map[string]any)
	cc, _ := meta["claudeCode"].(map[string]any)
	p, _ := cc["parentToolUseId"].(string)
	return p
}

// callText is the text of a tool call's content.
func callText(c map[string]any) string {
	var b strings.Builder
	items, _ := c["content"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		inner, _ := m["content"].(map[string]any)
		s, _ := inner["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

// TestRealCLISubagentWithoutCapability runs the real CLI's Agent tool in
// both ways (foreground and background) for an editor that did not ask for
// sub-agent sessions: the sub-agent's work shows only under the Agent call.
func TestRealCLISubagentWithoutCapability(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.scenario, func(t *testing.T) {
			l := newSubagentLog()
			s := realCLI(t, tt.scenario, l.client(t))
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Ask a helper what is in the project."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			text := l.text.String()
			if strings.Contains(text, "Child:") || strings.Contains(text, "CHILD_REPORT") {
				t.Errorf("the sub-agent's text is in the parent's: %q", text)
			}
			if !strings.Contains(text, "The helper found README.md.") {
				t.Errorf("parent text = %q", text)
			}
			child := l.calls[tt.child]
			if child == nil || parentOfCall(child) != string(tt.agent) || child["status"] != "completed" {
				t.Errorf("the sub-agent's Bash call = %v, want completed under %s", child, tt.agent)
			}
			for i, u := range l.history[tt.child] {
				if u["sessionUpdate"] == "tool_call" && parentOfCall(u) != string(tt.agent) {
					t.Errorf("update %d of the sub-agent's call does not name its parent: %v", i, u)
				}
			}
			if len(l.asked) != 1 || l.asked[0].ToolCall.ToolCallID != tt.child ||
				l.asked[0].ToolCall.Meta["claudeCode"].(map[string]any)["parentToolUseId"] != string(tt.agent) {
				t.Errorf("permission requests = %+v, want one for %s naming %s", l.asked, tt.child, tt.agent)
			}
			agent := l.calls[tt.agent]
			if agent["status"] != "completed" || callText(agent) != "CHILD_REPORT: the project holds README.md." {
				t.Errorf("Agent call ended %v with %q, want completed with the report", agent["status"], callText(agent))
			}
			// The Agent call is not over before its sub-agent is: no
			// update before the last says completed.
			h := l.history[tt.agent]
			for _, u := range h[:len(h)-1] {
				if u["status"] == "completed" {
					t.Errorf("the Agent call was completed before its report: %v", h)
					break
				}
			}
		})
	}
}
