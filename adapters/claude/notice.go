package claude

import (
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// noticeMode is how the translator reports the CLI's informational messages
// (the safeguards notice before a retried refusal, API retries, usage
// limits), which are for the user but not part of the conversation.
type noticeMode int

const (
	// noticesDropped: nobody is watching live (a history replay). ACP notices
	// are live events, not session history.
	noticesDropped noticeMode = iota
	// noticesAsText: the editor did not advertise session.notices. The
	// schema forbids notice updates then, and lets the agent use an agent
	// message for what the user should still see (Notice, ACP schema v1).
	noticesAsText
	// noticesAsUpdates: the editor advertised session.notices.
	noticesAsUpdates
)

// noticeModeFor picks the mode for an editor's capabilities.
func noticeModeFor(caps acp.ClientCapabilities) noticeMode {
	if caps.Session != nil && caps.Session.Notices != nil {
		return noticesAsUpdates
	}
	return noticesAsText
}

// notice is one informational message of the CLI.
type notice struct {
	severity    acp.NoticeSeverity
	title       string
	description string
	// surface: without notice updates the user must still see it, as
	// agent text. Messages the CLI itself keeps out of sight (level info)
	// are not.
	surface bool
}

// notify reports n as the editor's capabilities allow.
func (t *translator) notify(n notice) {
	if n.title == "" {
		return
	}
	switch {
	case t.notices == noticesAsUpdates:
		u := &acp.Notice{Severity: n.severity, Title: n.title}
		if n.description != "" {
			u.Description = acp.Ptr(n.description)
		}
		t.send(acp.SessionUpdate{Notice: u})
	case t.notices == noticesAsText && n.surface:
		text := n.title
		if n.description != "" {
			text = strings.TrimSuffix(text, ".") + ". " + n.description
		}
		t.paragraph(text)
	}
}

// paragraph sends text as agent text of its own, set apart from the model's
// text around it by blank lines.
func (t *translator) paragraph(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if t.textOpen {
		text = "\n\n" + text
	}
	t.sendChunk(text+"\n\n", false, "")
	t.textOpen = false
}

// informationalNotice describes system/informational: a line the CLI shows in its
// own UI. Its level says how prominently: info only in the transcript view,
// notice in grey, suggestion and warning more prominently.
func informationalNotice(root gjson.Result) notice {
	n := notice{title: strings.TrimSpace(root.Get("content").String()), severity: acp.NoticeSeverityInfo, surface: true}
	switch root.Get("level").String() {
	case "info":
		n.surface = false
	case "warning":
		n.severity = acp.NoticeSeverityWarning
	}
	return n
}

// apiRetryNotice describes system/api_retry: a failed API request that the
// CLI retries after a delay, during which the turn shows no progress.
func apiRetryNotice(root gjson.Result) notice {
	status, kind := root.Get("error_status"), root.Get("error").String()
	what := "The API request failed"
	switch {
	case status.Exists() && status.Type == gjson.Number && kind != "":
		what = fmt.Sprintf("The API request failed (%d %s)", status.Int(), kind)
	case status.Exists() && status.Type == gjson.Number:
		what = fmt.Sprintf("The API request failed (%d)", status.Int())
	case kind != "":
		what = fmt.Sprintf("The API request failed (%s)", kind)
	}
	title := what + "; retrying"
	if d := root.Get("retry_delay_ms").Int(); d > 0 {
		title += " in " + (time.Duration(d) * time.Millisecond).Round(100*time.Millisecond).String()
	}
	n := notice{severity: acp.NoticeSeverityWarning, title: title, surface: true}
	if a, m := root.Get("attempt").Int(), root.Get("max_retries").Int(); a > 0 && m > 0 {
		n.description = fmt.Sprintf("Attempt %d of %d.", a, m)
	}
	return n
}

// rateLimitNotice describes a rate_limit_event: the account's usage limit
// changed state. Only nearing or reaching it is worth the user's attention.
func rateLimitNotice(root gjson.Result) notice {
	info := root.Get("rate_limit_info")
	n := notice{surface: true}
	switch info.Get("status").String() {
	case "allowed_warning":
		n.severity, n.title = acp.NoticeSeverityWarning, "Approaching the usage limit"
	case "rejected":
		n.severity, n.title = acp.NoticeSeverityError, "Usage limit reached"
	default:
		return notice{}
	}
	if kind := info.Get("rateLimitType").String(); kind != "" {
		n.title += " (" + strings.ReplaceAll(kind, "_", " ") + ")"
	}
	if r := info.Get("resetsAt"); r.Exists() && r.Int() > 0 {
		n.description = "It resets at " + time.Unix(r.Int(), 0).UTC().Format("2006-01-02 15:04 UTC") + "."
	}
	return n
}
