package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// A model request that fails (the provider answers 5xx, the connection
// drops, the network is down) is retried by Codex within the turn: it
// sends an error notification with willRetry, "Reconnecting... 2/5" or
// "Reconnecting... waiting for network", and tries again after a backoff
// (up to a minute apart, for ever while the network is down). Each one
// reaches the editor, so a turn waiting on a failing provider is never
// silent; when Codex gives up, the turn ends with an error that names the
// provider's failure.

// retrying tells the editor about one retry of the turn's model request.
// A retry of Codex's WebSocket transport is only logged: Codex tries it
// first where the provider may offer it, and falls back to HTTP after its
// retries (a provider without it answers 404), announcing them all the
// same; the turn then goes on unharmed, and a real failure shows in the
// HTTP retries that follow.
func (t *turn) retrying(ctx context.Context, e *codexError) {
	t.s.a.opts.Logger.Info().Str("retry", e.Message).Str("details", e.Details).Str("kind", string(e.Info)).Msg("codex")
	if strings.Contains(e.Details, "url: ws://") || strings.Contains(e.Details, "url: wss://") {
		return
	}
	t.retries++
	t.lastRetry = e
	n := acp.Notice{Severity: acp.NoticeSeverityWarning, Title: e.Message}
	if e.Details != "" {
		n.Description = acp.Ptr(e.Details)
	}
	t.notify(ctx, n)
}

// notify sends n as a notice, or, to an editor without notices (ACP
// session.notices), as agent text of its own paragraph: the schema lets an
// agent say in an agent message what the user should still see.
func (t *turn) notify(ctx context.Context, n acp.Notice) {
	if canNotify(t.s.client) {
		_ = t.s.update(ctx, acp.SessionUpdate{Notice: &n})
		return
	}
	text := n.Title
	if n.Description != nil && *n.Description != "" {
		text = strings.TrimSuffix(text, ".") + ": " + *n.Description
	}
	if t.textOpen {
		text = "\n\n" + text
	}
	t.textOpen = false
	_ = t.s.update(ctx, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text + "\n\n")}})
}

// failed is the error of a turn Codex ended as failed with f: Codex's
// message, what kind of failure it was and, after retries, how many it
// made and what the last one was retrying.
func (t *turn) failed(f *codexError) error {
	var why []string
	if k := errorKind(f.Info); k != "" {
		why = append(why, k)
	}
	if t.retries > 0 {
		r := fmt.Sprintf("the model provider still failing after %d %s", t.retries, plural(t.retries, "retry", "retries"))
		if d := t.lastRetry.Details; d != "" && d != f.Message {
			r += ": " + d
		}
		why = append(why, r)
	}
	msg := "codex turn failed: " + f.Message
	if len(why) > 0 {
		msg += " (" + strings.Join(why, "; ") + ")"
	}
	return fmt.Errorf("%s", msg)
}

// errorKind is a codexErrorInfo in words, with the HTTP status when Codex
// gives one: "internal server error", "response stream disconnected, HTTP
// 502". It is empty for none and for "other", which says nothing.
func errorKind(info json.RawMessage) string {
	var name string
	var status *int
	if json.Unmarshal(info, &name) != nil {
		var obj map[string]struct {
			Status *int `json:"httpStatusCode"`
		}
		if json.Unmarshal(info, &obj) != nil || len(obj) != 1 {
			return ""
		}
		for k, v := range obj {
			name, status = k, v.Status
		}
	}
	if name == "" || name == "other" {
		return ""
	}
	var w strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			w.WriteByte(' ')
		}
		w.WriteRune(unicode.ToLower(r))
	}
	if status != nil {
		fmt.Fprintf(&w, ", HTTP %d", *status)
	}
	return w.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
