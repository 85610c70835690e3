package codex

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// subagentServer is a stand-in app-server whose turn spawns a sub-agent
// thread in the order that the real one only sometimes takes: the
// sub-agent's first messages (its turn's start too) come before the spawn
// item, and the
// session's own turn ends while the sub-agent still runs and asks for an
// approval; the sub-agent's turn ends once the approval is answered.
func subagentServer() func(context.Context, io.Reader, io.Writer) error {
	child := `"threadId":"child-1"`
	return stubAppServer(func(_ context.Context, m stubMsg, stdout io.Writer) error {
		switch {
		case m.Method == mTurnStart:
			for _, l := range []string{
				`{"method":"thread/status/changed","params":{` + child + `,"status":{"type":"idle"}}}`,
				`{"method":"turn/started","params":{` + child + `,"turn":{"id":"c-turn","status":"inProgress"}}}`,
				`{"method":"item/started","params":{"threadId":"thread-1","turnId":"turn-1","item":{"type":"subAgentActivity","id":"call-1","kind":"started","agentThreadId":"child-1","agentPath":"/root/helper"}}}`,
				`{"method":"item/agentMessage/delta","params":{` + child + `,"turnId":"c-turn","itemId":"m1","delta":"child text"}}`,
				`{"method":"item/completed","params":{` + child + `,"turnId":"c-turn","item":{"type":"agentMessage","id":"m1","text":"REPORT"}}}`,
				`{"method":"item/agentMessage/delta","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"p1","delta":"parent text"}}`,
				turnCompleted,
				`{"method":"item/started","params":{` + child + `,"turnId":"c-turn","item":{"type":"commandExecution","id":"cmd-1","command":"touch x","status":"inProgress"}}}`,
				`{"id":100,"method":"item/commandExecution/requestApproval","params":{` + child + `,"turnId":"c-turn","itemId":"cmd-1","command":"touch x"}}`,
			} {
				fmt.Fprintln(stdout, l)
			}
		case m.answer() && string(m.ID) == "100":
			fmt.Fprintln(stdout, `{"method":"item/completed","params":{`+child+`,"turnId":"c-turn","item":{"type":"commandExecution","id":"cmd-1","command":"touch x","status":"completed","exitCode":0,"aggregatedOutput":""}}}`)
			fmt.Fprintln(stdout, `{"method":"turn/completed","params":{`+child+`,"turn":{"id":"c-turn","status":"completed"}}}`)
		}
		return nil
	})
}

// TestSubagentOrder: a sub-agent's messages that come before its spawn
// item follow the announcement, its approval reaches its session, and the
// prompt ends only when the sub-agent's turn has, after the session's own
// turn/completed.
func TestSubagentOrder(t *testing.T) {
	for _, children := range []bool{true, false} {
		t.Run(fmt.Sprintf("child sessions %v", children), func(t *testing.T) {
			a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), NoSpare: true,
				Launch: func(context.Context, proc.Spec) (proc.Process, error) {
					return proc.InProcess("codex", subagentServer()), nil
				}})
			defer a.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			e := newSubEditor(t, children)
			s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, e)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if stop, err := promptText(ctx, s, "go"); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			var got []string
			for _, f := range e.Frames() {
				where := "parent"
				if f.Session != s.ID() {
					where = string(f.Session)
				}
				if f.Perm != nil {
					got = append(got, where+" asks "+string(f.Perm.ToolCall.ToolCallID)+" "+parentOf(f.Perm.ToolCall.Meta))
					continue
				}
				line := where + " " + f.U["sessionUpdate"].(string)
				if id, ok := f.U["toolCallId"].(string); ok {
					line += " " + id + " " + fmt.Sprint(f.U["status"]) + " " + parentOf(f.U["_meta"])
				}
				if st, ok := f.U["state"].(map[string]any); ok {
					line += fmt.Sprintf(" %v %v", st["state"], st["stopReason"])
				}
				if text := frameText(f.U); text != "" && f.U["toolCallId"] != "cmd-1" {
					line += " " + text
				}
				got = append(got, line)
			}
			want := []string{
				"parent tool_call call-1 in_progress ",
				"parent subagent_update running <nil>",
				"child-1 agent_message_chunk child text",
				"parent agent_message_chunk parent text",
				"child-1 tool_call cmd-1 in_progress ",
				"parent subagent_update requires_action <nil>",
				"child-1 asks cmd-1 ",
				"parent subagent_update running <nil>",
				"child-1 tool_call_update cmd-1 completed ",
				"parent subagent_update idle end_turn",
				"parent tool_call_update call-1 completed  REPORT",
			}
			if !children {
				want = []string{
					"parent tool_call call-1 in_progress ",
					"parent tool_call_update call-1 in_progress  child text",
					"parent agent_message_chunk parent text",
					"parent tool_call cmd-1 in_progress call-1",
					"parent asks cmd-1 call-1",
					"parent tool_call_update cmd-1 completed call-1",
					"parent tool_call_update call-1 completed  REPORT",
				}
			}
			var kept []string
			for _, l := range got {
				if !strings.Contains(l, "usage_update") {
					kept = append(kept, l)
				}
			}
			if strings.Join(kept, "\n") != strings.Join(want, "\n") {
				t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// parentOf is the spawn call a frame's _meta names.
func parentOf(m any) string {
	meta, _ := m.(map[string]any)
	cx, _ := meta["codex"].(map[string]any)
	p, _ := cx["parentToolCallId"].(string)
	return p
}
