package codex

import (
	"encoding/json"
	"sync"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Notifications Codex sends to tell the user something outside the
// conversation. They become ACP notices, never agent text: they are not
// part of what the model said.
const (
	nWarning       = "warning"
	nConfigWarning = "configWarning"
	nDeprecation   = "deprecationNotice"
)

// maxHeld bounds the app-server-wide notices kept for sessions opened
// later.
const maxHeld = 16

// noticeOf returns the notice for a notification, or nil. Errors count
// only when they concern no turn (a turn's error ends the turn instead).
func noticeOf(method string, params json.RawMessage) *acp.Notice {
	var p struct {
		Message string  `json:"message"`
		Summary string  `json:"summary"`
		Details *string `json:"details"`
		TurnID  string  `json:"turnId"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
		WillRetry bool `json:"willRetry"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	switch method {
	case nWarning:
		return &acp.Notice{Severity: acp.NoticeSeverityWarning, Title: p.Message}
	case nConfigWarning, nDeprecation:
		n := &acp.Notice{Severity: acp.NoticeSeverityWarning, Title: p.Summary}
		if p.Details != nil && *p.Details != "" {
			n.Description = p.Details
		}
		if method == nDeprecation {
			n.Severity = acp.NoticeSeverityInfo
		}
		return n
	case nError:
		if p.TurnID == "" && p.Error != nil && !p.WillRetry {
			return &acp.Notice{Severity: acp.NoticeSeverityError, Title: p.Error.Message}
		}
	}
	return nil
}

// notices holds the notices an app-server sent about no thread (at start:
// configuration warnings), so every session opened on it shows them.
type notices struct {
	mu   sync.Mutex
	held []acp.Notice // guarded by mu; at most maxHeld
}

func (h *notices) add(n acp.Notice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.held) < maxHeld {
		h.held = append(h.held, n)
	}
}

func (h *notices) all() []acp.Notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]acp.Notice(nil), h.held...)
}

// canNotify reports whether the editor takes notice updates (ACP
// session.notices); without it they are only logged.
func canNotify(c acp.Client) bool {
	caps := c.Capabilities()
	return caps.Session != nil && caps.Session.Notices != nil
}
