package acp

import (
	"bytes"
	"encoding/json"
)

// Sub-agent sessions: UNSTABLE in ACP (schema.unstable.json of the pinned
// TypeScript SDK), so nothing may be sent with them to a client that did
// not advertise clientCapabilities.subagents.

// SubagentCapabilities is the client's marker that it takes child sessions
// (clientCapabilities.subagents; "{}" advertises it).
type SubagentCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SubagentUpdate announces, on the parent session, a child session the
// parent created, or changes the parent's metadata of it. The first one
// for a child must precede every update of the child. Omitted fields keep
// their values.
type SubagentUpdate struct {
	SessionID    SessionID                    `json:"sessionId"`
	Title        *string                      `json:"title,omitempty"`
	Description  *string                      `json:"description,omitempty"`
	Capabilities *SubagentSessionCapabilities `json:"capabilities,omitempty"`
	State        *SubagentState               `json:"state,omitempty"`
	Cwd          *string                      `json:"cwd,omitempty"`
	Meta         map[string]any               `json:"_meta,omitempty"`
}

// SubagentSessionCapabilities lists what the client may do to the child;
// Cancel set means session/cancel of the child stops its current work.
type SubagentSessionCapabilities struct {
	Cancel *SessionCancelCapabilities `json:"cancel,omitempty"`
	Meta   map[string]any             `json:"_meta,omitempty"`
}

// SessionCancelCapabilities marks session/cancel as supported.
type SessionCancelCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SubagentState is a child's work state: "running", "requires_action",
// "idle" (with the StopReason its work ended with) or "unknown".
type SubagentState struct {
	State      string         `json:"state"`
	StopReason *StopReason    `json:"stopReason,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// Subagent states.
const (
	SubagentRunning        = "running"
	SubagentRequiresAction = "requires_action"
	SubagentIdle           = "idle"
	SubagentUnknown        = "unknown"
)

// AnnouncedChild is the child session a raw frame announces: the session
// id of a session/update whose update is a subagent_update. Frames that
// announce none are told apart without decoding.
func AnnouncedChild(method string, params json.RawMessage) (SessionID, bool) {
	if method != MethodSessionUpdate || !bytes.Contains(params, []byte(`"subagent_update"`)) {
		return "", false
	}
	var n struct {
		Update struct {
			Kind      string    `json:"sessionUpdate"`
			SessionID SessionID `json:"sessionId"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &n) != nil || n.Update.Kind != "subagent_update" || n.Update.SessionID == "" {
		return "", false
	}
	return n.Update.SessionID, true
}
