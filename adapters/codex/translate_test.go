package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// TestTranslate feeds app-server notifications (shapes from Codex 0.169's
// schema) through one translator and checks the updates, in order.
func TestTranslate(t *testing.T) {
	steps := []struct {
		method, params string
		want           []string
	}{
		{nSummaryDelta, `{"turnId":"t","itemId":"r","delta":"Thinking.","summaryIndex":0}`, []string{"thought: Thinking."}},
		{nReasoningDelta, `{"turnId":"t","itemId":"r","delta":"Raw.","contentIndex":0}`, []string{"thought: Raw."}},
		{nItemStarted, `{"item":{"type":"commandExecution","id":"c1","command":"/bin/bash -lc 'ls'","cwd":"/p","status":"inProgress","commandActions":[{"type":"listFiles","command":"ls"}]}}`,
			[]string{"tool_call execute pending->in_progress: ls"}},
		{nCommandOutput, `{"turnId":"t","itemId":"c1","delta":"a\n"}`, []string{"update in_progress: ```\na\n```"}},
		{nCommandOutput, `{"turnId":"t","itemId":"c1","delta":"b\n"}`, []string{"update in_progress: ```\na\nb\n```"}},
		{nItemCompleted, `{"item":{"type":"commandExecution","id":"c1","command":"ls","status":"failed","aggregatedOutput":"a\nb\n","exitCode":2}}`,
			[]string{"update failed: ```\na\nb\n```\n\nExit code 2"}},
		{nItemCompleted, `{"item":{"type":"commandExecution","id":"c2","command":"rm x","status":"declined","aggregatedOutput":null,"exitCode":null}}`,
			[]string{"update failed: The command was declined."}},
		{nItemStarted, `{"item":{"type":"fileChange","id":"f1","status":"inProgress","changes":[{"path":"/p/old.txt","kind":{"type":"delete"},"diff":"gone\n"}]}}`,
			[]string{`tool_call delete pending: Delete old.txt diff /p/old.txt "gone\n" -> ""`}},
		{nItemStarted, `{"item":{"type":"fileChange","id":"f2","status":"inProgress","changes":[{"path":"/p/a.go","kind":{"type":"update","move_path":"/p/b.go"},"diff":"@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"}]}}`,
			[]string{`tool_call move pending: Move a.go to b.go diff /p/b.go "keep\nold\n" -> "keep\nnew\n"`}},
		{nPlanUpdated, `{"turnId":"t","plan":[{"step":"one","status":"completed"},{"step":"two","status":"inProgress"}]}`, []string{"plan 2 entries"}},
		{nAgentDelta, `{"turnId":"t","itemId":"m","delta":"Hi"}`, []string{"message: Hi"}},
		{"thread/status/changed", `{"status":{"type":"idle"}}`, nil},
	}
	tr := newTranslator()
	for i, st := range steps {
		var ev event
		if err := json.Unmarshal([]byte(st.params), &ev); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range tr.notification(st.method, &ev) {
			got = append(got, summary(u))
		}
		if strings.Join(got, "|") != strings.Join(st.want, "|") {
			t.Errorf("step %d %s:\n got %q\nwant %q", i, st.method, got, st.want)
		}
	}
}

// TestApprovalOptions checks the options offered for Codex's approval
// requests and the decision each answer maps back to.
func TestApprovalOptions(t *testing.T) {
	escalated := `{"itemId":"c","command":"touch x","availableDecisions":["accept",{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["touch","x"]}},"cancel"]}`
	tests := []struct {
		name, method, params string
		wantOptions          string
		answer               acp.RequestPermissionOutcome
		wantDecision         string
	}{
		{"escalated command rejected", rCommandApproval, escalated, "accept,acceptWithExecpolicyAmendment,decline",
			acp.PermissionSelected(optDecline), `"decline"`},
		{"escalated command always", rCommandApproval, escalated, "accept,acceptWithExecpolicyAmendment,decline",
			acp.PermissionSelected(optAmendment), `{"acceptWithExecpolicyAmendment":{"execpolicy_amendment":["touch","x"]}}`},
		{"command cancelled", rCommandApproval, escalated, "accept,acceptWithExecpolicyAmendment,decline",
			acp.PermissionCancelled(), `"cancel"`},
		{"file change for the session", rFileApproval, `{"itemId":"f"}`, "accept,acceptForSession,decline",
			acp.PermissionSelected(optAcceptForSession), `"acceptForSession"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev event
			if err := json.Unmarshal([]byte(tt.params), &ev); err != nil {
				t.Fatal(err)
			}
			a := newApproval(tt.method, &ev)
			if got := optionIDs(a.request("s", tt.method, &ev)); got != tt.wantOptions {
				t.Errorf("options = %s, want %s", got, tt.wantOptions)
			}
			got, _ := json.Marshal(a.decision(acp.RequestPermissionResponse{Outcome: tt.answer}, nil))
			if string(got) != tt.wantDecision {
				t.Errorf("decision = %s, want %s", got, tt.wantDecision)
			}
		})
	}
}

func TestNoticeOf(t *testing.T) {
	tests := []struct {
		method, params, want string
	}{
		{nWarning, `{"threadId":"x","message":"Model metadata not found"}`, "warning: Model metadata not found"},
		{nConfigWarning, `{"summary":"bad key","details":"line 3"}`, "warning: bad key (line 3)"},
		{nDeprecation, `{"summary":"old flag","details":null}`, "info: old flag"},
		{nError, `{"error":{"message":"stream lost"},"willRetry":false}`, "error: stream lost"},
		{nError, `{"turnId":"t","error":{"message":"turn failed"},"willRetry":false}`, ""},
		{nError, `{"error":{"message":"retrying"},"willRetry":true}`, ""},
		{nAgentDelta, `{"delta":"hi"}`, ""},
	}
	for _, tt := range tests {
		got := ""
		if n := noticeOf(tt.method, json.RawMessage(tt.params)); n != nil {
			got = string(n.Severity) + ": " + n.Title
			if n.Description != nil {
				got += " (" + *n.Description + ")"
			}
		}
		if got != tt.want {
			t.Errorf("%s %s: got %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}
