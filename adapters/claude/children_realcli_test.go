package claude

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// newChildEditor is the editor of the sub-agent tests: it takes child
// sessions (clientCapabilities.subagents) and records what a child's
// client is sent under the child's id, which the engine leaves to it.
func newChildEditor(t *testing.T) *acptest.ChildEditor {
	e := acptest.NewChildEditor(t, true, optAllowOnce)
	e.Restamp = true
	return e
}

// checkChildOrder checks that the child is announced on the parent before
// any of its frames, that nothing of it is the parent's text, and returns
// the child's id.
func checkChildOrder(t *testing.T, frames []acptest.ChildFrame, parent acp.SessionID) acp.SessionID {
	t.Helper()
	var child acp.SessionID
	announced := false
	var parentText strings.Builder
	for i, f := range frames {
		switch {
		case f.Session == parent && f.U["sessionUpdate"] == "subagent_update":
			if child == "" {
				child = acp.SessionID(f.U["sessionId"].(string))
				announced = true
				if f.U["title"] != "Inspect project" || f.U["description"] != "general-purpose" || f.U["capabilities"] == nil {
					t.Errorf("announcement %v, want the call's description as title, the agent type, cancel", f.U)
				}
			}
		case f.Session == parent && f.U["sessionUpdate"] == "agent_message_chunk":
			c, _ := f.U["content"].(map[string]any)
			s, _ := c["text"].(string)
			parentText.WriteString(s)
		case f.Session != parent && !announced:
			t.Fatalf("frame %d of %s before any announcement: %+v", i, f.Session, f)
		case f.Session != parent && f.Session != child:
			t.Errorf("frame %d of an unknown session %s", i, f.Session)
		}
	}
	if child == "" {
		t.Fatal("no child session was announced")
	}
	if s := parentText.String(); strings.Contains(s, "Child:") || strings.Contains(s, "CHILD_REPORT") {
		t.Errorf("the sub-agent's text is in the parent's: %q", s)
	}
	return child
}

// TestRealCLISubagentChildSessions runs the real CLI's Agent tool in both
// ways for an editor that takes child sessions: the sub-agent is a session
// of its own, announced on the parent before anything of it, with its
// prompt, text, tool call and permission request, and it ends idle.
func TestRealCLISubagentChildSessions(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.scenario, func(t *testing.T) {
			e := newChildEditor(t)
			s := realCLI(t, tt.scenario, e)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Ask a helper what is in the project."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			frames := e.Frames()
			parent := s.ID()
			child := checkChildOrder(t, frames, parent)
			if got, want := strings.Join(acptest.SubagentStates(frames, parent, child), " "), "running requires_action running idle/end_turn"; got != want {
				t.Errorf("child states %q, want %q", got, want)
			}
			var childText, prompted string
			var perms []acp.RequestPermissionRequest
			bash := map[string]any{}
			for _, f := range frames {
				if f.Perm != nil {
					perms = append(perms, *f.Perm)
					continue
				}
				id, _ := f.U["toolCallId"].(string)
				if f.Session == parent && id == string(tt.child) {
					t.Errorf("the sub-agent's tool call is on the parent: %v", f.U)
				}
				if f.Session != child {
					continue
				}
				c, _ := f.U["content"].(map[string]any)
				text, _ := c["text"].(string)
				switch f.U["sessionUpdate"] {
				case "agent_message_chunk":
					childText += text
				case "user_message_chunk":
					prompted += text
				case "tool_call", "tool_call_update":
					if id == string(tt.child) {
						for k, v := range f.U {
							bash[k] = v
						}
					}
				}
			}
			if !strings.Contains(prompted, "CHILD_TASK") {
				t.Errorf("the child's prompt = %q", prompted)
			}
			if !strings.Contains(childText, "Child: listing files.") || !strings.Contains(childText, "CHILD_REPORT") {
				t.Errorf("the child's text = %q", childText)
			}
			if bash["status"] != "completed" {
				t.Errorf("the child's Bash call = %v, want completed in the child session", bash)
			}
			if len(perms) != 1 || perms[0].SessionID != child || perms[0].ToolCall.ToolCallID != tt.child {
				t.Errorf("permission requests = %+v, want one of %s for %s", perms, child, tt.child)
			}
			var agent map[string]any
			for _, f := range frames {
				if f.Session == parent && f.U["toolCallId"] == string(tt.agent) {
					agent = f.U
				}
			}
			if agent["status"] != "completed" || callText(agent) != "CHILD_REPORT: the project holds README.md." {
				t.Errorf("the Agent call ended %v, want completed with the report", agent)
			}
		})
	}
}

// TestRealCLISubagentCancelChild cancels the child session while its
// permission request waits: Claude Code's stop_task stops the sub-agent
// alone, the child ends cancelled, and the parent's turn goes on to its
// own end.
func TestRealCLISubagentCancelChild(t *testing.T) {
	for _, scenario := range []string{"subagent_sync", "subagent_background"} {
		t.Run(scenario, func(t *testing.T) {
			e := newChildEditor(t)
			var s acp.Session
			withdrawn := make(chan bool, 1)
			e.Ask = func(ctx context.Context, r acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				if !s.(acp.ChildCanceller).CancelChild(r.SessionID) {
					t.Errorf("CancelChild(%s) = false for a running child", r.SessionID)
				}
				select {
				case <-ctx.Done():
					withdrawn <- true
				case <-time.After(30 * time.Second):
					withdrawn <- false
				}
				return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}
			}
			s = realCLI(t, scenario, e)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Ask a helper what is in the project."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v: cancelling a child must not cancel the parent", stop, err)
			}
			if !<-withdrawn {
				t.Error("the child's permission request was not withdrawn after its cancel")
			}
			frames := e.Frames()
			child := checkChildOrder(t, frames, s.ID())
			st := acptest.SubagentStates(frames, s.ID(), child)
			if len(st) == 0 || st[len(st)-1] != "idle/cancelled" {
				t.Errorf("child states %q, want the last idle/cancelled", st)
			}
			if s.(acp.ChildCanceller).CancelChild(child) {
				t.Error("CancelChild of an ended child = true")
			}
		})
	}
}
