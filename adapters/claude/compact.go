package claude

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// compaction follows one context compaction of the CLI (auto, or /compact).
// The CLI reports it as system/status "compacting", then a status with
// compact_result, a compact_boundary (trigger, tokens before and after) and
// a synthetic user message holding the summary the model wrote.
type compaction struct {
	n        int    // compactions seen, for ids
	id       string // the one running; "" when none
	boundary bool   // its compact_boundary came: only the summary may follow
	meta     map[string]any
	pre      uint64
	post     uint64
}

// compactionFor reports whether an editor takes compaction updates.
func compactionFor(caps acp.ClientCapabilities) bool {
	return caps.Session != nil && caps.Session.Compaction != nil
}

// compactStart reports a compaction that has begun.
func (t *translator) compactStart() {
	c := &t.compact
	if c.id != "" {
		return
	}
	c.n++
	c.id = fmt.Sprintf("compaction-%d", c.n)
	c.boundary, c.meta, c.pre, c.post = false, nil, 0, 0
	if t.compaction {
		t.send(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: acp.CompactionID(c.id), Status: acp.CompactionStatusInProgress}})
		return
	}
	// Without notices the user learns of it when it is done.
	t.notify(notice{severity: acp.NoticeSeverityInfo, title: "Compacting the conversation"})
}

// compactStatus takes the status frame that says how the compaction went.
// Success is reported once the boundary and summary are known.
func (t *translator) compactStatus(root gjson.Result) {
	if root.Get("compact_result").String() == "success" {
		return
	}
	t.compactStart() // a failure may be all there is
	why := orDefault(root.Get("compact_error").String(), "the conversation could not be compacted")
	c := &t.compact
	if t.compaction {
		t.send(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: acp.CompactionID(c.id), Status: acp.CompactionStatusFailed, Error: acp.Set(why)}})
	} else {
		t.notify(notice{severity: acp.NoticeSeverityWarning, title: "Compacting the conversation failed",
			description: why, surface: true})
	}
	c.id = ""
}

// compactBoundary takes the boundary: the context now holds the summary, and
// its size is what the context meter shows from here on.
func (t *translator) compactBoundary(root gjson.Result) {
	t.compactStart() // an auto compaction may come without a status
	c := &t.compact
	md := root.Get("compact_metadata")
	c.boundary = true
	c.pre, c.post = md.Get("pre_tokens").Uint(), md.Get("post_tokens").Uint()
	c.meta = map[string]any{"claudeCode": map[string]any{
		"trigger": md.Get("trigger").String(), "preTokens": c.pre, "postTokens": c.post}}
	if md.Get("post_tokens").Exists() {
		t.used = c.post
	}
}

// compactSummary takes the synthetic user message after a boundary and
// reports its summary; it reports whether the message was one.
func (t *translator) compactSummary(root gjson.Result) bool {
	c := &t.compact
	if c.id == "" || !c.boundary || !root.Get("isSynthetic").Bool() {
		return false
	}
	text := summaryText(transcripts.PromptText(root.Get("message.content")))
	if text != "" && t.compaction {
		t.send(acp.SessionUpdate{CompactionSummaryChunk: &acp.CompactionSummaryChunk{
			CompactionID: acp.CompactionID(c.id), Content: acp.TextBlock(text)}})
	}
	t.compactDone()
	return true
}

// compactDone reports a compaction finished (after its summary, or at the
// first other frame when there was none).
func (t *translator) compactDone() {
	c := &t.compact
	if c.id == "" || !c.boundary {
		return
	}
	tokens := fmt.Sprintf("%d tokens before, %d after", c.pre, c.post)
	if t.compaction {
		t.send(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: acp.CompactionID(c.id), Status: acp.CompactionStatusCompleted, Meta: c.meta}})
	} else {
		t.notify(notice{severity: acp.NoticeSeverityInfo, title: "Conversation compacted",
			description: tokens + ".", surface: true})
	}
	c.id, c.boundary = "", false
}

// compactUnfinished ends a compaction that a turn ended without finishing
// (interrupted while the model wrote the summary), so the editor does not
// show it running forever.
func (t *translator) compactUnfinished() {
	c := &t.compact
	if c.id == "" {
		return
	}
	if t.compaction {
		t.send(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{
			CompactionID: acp.CompactionID(c.id), Status: acp.CompactionStatusCancelled}})
	} else {
		t.notify(notice{severity: acp.NoticeSeverityWarning, title: "Compacting the conversation was interrupted"})
	}
	c.id, c.boundary = "", false
}

// summaryText is the summary in the CLI's compaction message, without the
// instructions to the model around it; the whole text when it does not
// have the expected shape.
func summaryText(s string) string {
	const intro = "The summary below covers the earlier portion of the conversation."
	body := s
	if _, after, ok := strings.Cut(body, intro); ok {
		body = after
	}
	for {
		i := strings.Index(body, "<system-reminder>")
		j := strings.Index(body, "</system-reminder>")
		if i < 0 || j < i {
			break
		}
		body = body[:i] + body[j+len("</system-reminder>"):]
	}
	if i := strings.Index(body, "\n\nIf you need specific details from before compaction"); i >= 0 {
		body = body[:i]
	} else if i := strings.Index(body, "\nContinue the conversation from where it left off"); i >= 0 {
		body = body[:i]
	}
	if body = strings.TrimSpace(body); body == "" {
		return strings.TrimSpace(s)
	}
	return body
}
