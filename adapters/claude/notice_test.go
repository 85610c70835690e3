package claude

import (
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestNotices feeds the CLI's informational messages (shapes from Claude
// Code 2.1.329: recorded, or from its SDK schema for rate_limit_event) to
// the translator for an editor with and without session.notices, and for a
// history replay. Every update must be valid ACP.
func TestNotices(t *testing.T) {
	v := acptest.Load(t)
	safeguards := `{"type":"system","subtype":"informational","content":"Opus 5.5's safeguards stopped the response above · continuing once with that noted","level":"notice","uuid":"u","session_id":"s"}`
	quiet := `{"type":"system","subtype":"informational","content":"Loaded 3 skills","level":"info","uuid":"u","session_id":"s"}`
	warning := `{"type":"system","subtype":"informational","content":"Hook denied continuation","level":"warning","uuid":"u","session_id":"s"}`
	retry := `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":1500,"error_status":429,"error":"rate_limit","session_id":"s","uuid":"u"}`
	allowed := `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1798761600},"uuid":"u","session_id":"s"}`
	nearing := `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","rateLimitType":"five_hour","utilization":0.9,"resetsAt":1798761600},"uuid":"u","session_id":"s"}`
	rejected := `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"seven_day","resetsAt":1798761600},"uuid":"u","session_id":"s"}`
	empty := `{"type":"system","subtype":"informational","content":"","level":"notice","uuid":"u","session_id":"s"}`

	notice := func(sev acp.NoticeSeverity, title, desc string) acp.SessionUpdate {
		n := &acp.Notice{Severity: sev, Title: title}
		if desc != "" {
			n.Description = acp.Ptr(desc)
		}
		return acp.SessionUpdate{Notice: n}
	}
	tests := []struct {
		name  string
		mode  noticeMode
		lines []string
		want  []acp.SessionUpdate
	}{
		{"safeguards as notice", noticesAsUpdates, []string{safeguards},
			[]acp.SessionUpdate{notice(acp.NoticeSeverityInfo, "Opus 5.5's safeguards stopped the response above · continuing once with that noted", "")}},
		{"safeguards as text", noticesAsText, []string{safeguards},
			[]acp.SessionUpdate{acp.UpdateAgentText("Opus 5.5's safeguards stopped the response above · continuing once with that noted\n\n")}},
		{"info level only as notice", noticesAsUpdates, []string{quiet},
			[]acp.SessionUpdate{notice(acp.NoticeSeverityInfo, "Loaded 3 skills", "")}},
		{"info level not as text", noticesAsText, []string{quiet}, nil},
		{"warning", noticesAsUpdates, []string{warning},
			[]acp.SessionUpdate{notice(acp.NoticeSeverityWarning, "Hook denied continuation", "")}},
		{"api retry as notice", noticesAsUpdates, []string{retry},
			[]acp.SessionUpdate{notice(acp.NoticeSeverityWarning, "The API request failed (429 rate_limit); retrying in 1.5s", "Attempt 1 of 2.")}},
		{"api retry as text", noticesAsText, []string{retry},
			[]acp.SessionUpdate{acp.UpdateAgentText("The API request failed (429 rate_limit); retrying in 1.5s. Attempt 1 of 2.\n\n")}},
		{"rate limit allowed is quiet", noticesAsUpdates, []string{allowed}, nil},
		{"rate limit nearing", noticesAsUpdates, []string{nearing},
			[]acp.SessionUpdate{notice(acp.NoticeSeverityWarning, "Approaching the usage limit (five hour)", "It resets at 2027-01-01 00:00 UTC.")}},
		{"rate limit reached as text", noticesAsText, []string{rejected},
			[]acp.SessionUpdate{acp.UpdateAgentText("Usage limit reached (seven day). It resets at 2027-01-01 00:00 UTC.\n\n")}},
		{"empty content", noticesAsUpdates, []string{empty}, nil},
		{"history replay drops them", noticesDropped, []string{safeguards, retry, rejected}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []acp.SessionUpdate
			tr := newTranslator("/w", zerolog.Nop())
			tr.notices = tt.mode
			tr.emit = func(u acp.SessionUpdate) { got = append(got, u) }
			for _, l := range tt.lines {
				tr.handle(lineEvent(l))
			}
			checkUpdates(t, v, got, tt.want)
		})
	}
}

// TestNoticeParagraph checks that a notice sent as text stands apart from
// the model's text around it.
func TestNoticeParagraph(t *testing.T) {
	var text string
	tr := newTranslator("/w", zerolog.Nop())
	tr.notices = noticesAsText
	tr.emit = func(u acp.SessionUpdate) {
		if u.AgentMessageChunk != nil {
			text += u.AgentMessageChunk.Content.Text.Text
		}
	}
	tr.chunk("I can't help with that.", false, "")
	tr.handle(lineEvent(`{"type":"system","subtype":"informational","content":"Stopped by safeguards","level":"notice"}`))
	tr.chunk("Retried.", false, "")
	if want := "I can't help with that.\n\nStopped by safeguards\n\nRetried."; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
}

// lineEvent is the reader's event for one stdout line.
func lineEvent(line string) event {
	b := []byte(line)
	ev := event{line: b}
	var head struct{ Type, Subtype string }
	if err := json.Unmarshal(b, &head); err == nil {
		ev.typ, ev.subtype = head.Type, head.Subtype
	}
	return ev
}

// checkUpdates compares updates as JSON and validates each one, as a
// session/update, against the ACP schema.
func checkUpdates(t *testing.T, v *acptest.Validator, got, want []acp.SessionUpdate) {
	t.Helper()
	for _, u := range got {
		raw, err := json.Marshal(acp.SessionNotification{SessionID: testSessionID, Update: u})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Validate("SessionNotification", raw); err != nil {
			t.Errorf("invalid update %s: %v", raw, err)
		}
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("updates\n got %s\nwant %s", g, w)
	}
}
