package acp

import (
	"encoding/json"
)

// SessionID identifies a session.
type SessionID string

// SessionModeID identifies a session mode.
type SessionModeID string

// ModelID identifies a model for the legacy session/set_model method.
type ModelID string

// RequestID is a JSON-RPC request id as it appears in $/cancel_request: a
// string, an integer or null, kept raw so the JSON-RPC layer can match it
// exactly.
type RequestID = json.RawMessage

// NewSessionRequest is the params of session/new.
type NewSessionRequest struct {
	// Cwd is the session's working directory; it must be absolute.
	Cwd string `json:"cwd"`
	// AdditionalDirectories are extra absolute workspace roots, honoured
	// only when the agent advertised sessionCapabilities.additionalDirectories.
	AdditionalDirectories []string       `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer    `json:"mcpServers"`
	Meta                  map[string]any `json:"_meta,omitempty"`
}

// NewSessionResponse is the result of session/new.
type NewSessionResponse struct {
	SessionID     SessionID             `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// LoadSessionRequest is the params of session/load.
type LoadSessionRequest struct {
	McpServers            []McpServer    `json:"mcpServers"`
	Cwd                   string         `json:"cwd"`
	AdditionalDirectories []string       `json:"additionalDirectories,omitempty"`
	SessionID             SessionID      `json:"sessionId"`
	Meta                  map[string]any `json:"_meta,omitempty"`
}

// LoadSessionResponse is the result of session/load, sent after the
// history has been replayed as session/update notifications.
type LoadSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// ResumeSessionRequest is the params of session/resume: reopen a session
// without replaying its history.
type ResumeSessionRequest struct {
	SessionID             SessionID      `json:"sessionId"`
	Cwd                   string         `json:"cwd"`
	AdditionalDirectories []string       `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer    `json:"mcpServers,omitempty"`
	Meta                  map[string]any `json:"_meta,omitempty"`
}

// ResumeSessionResponse is the result of session/resume.
type ResumeSessionResponse struct {
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// ListSessionsRequest is the params of session/list.
type ListSessionsRequest struct {
	// Cwd, if set, filters by working directory; it must be absolute.
	Cwd *string `json:"cwd,omitempty"`
	// Cursor is the nextCursor of a previous page.
	Cursor *string        `json:"cursor,omitempty"`
	Meta   map[string]any `json:"_meta,omitempty"`
}

// ListSessionsResponse is the result of session/list.
type ListSessionsResponse struct {
	Sessions   []SessionInfo  `json:"sessions"`
	NextCursor *string        `json:"nextCursor,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// SessionInfo describes one stored session.
type SessionInfo struct {
	SessionID             SessionID `json:"sessionId"`
	Cwd                   string    `json:"cwd"`
	AdditionalDirectories []string  `json:"additionalDirectories,omitempty"`
	Title                 *string   `json:"title,omitempty"`
	// UpdatedAt is an ISO 8601 timestamp of the last activity.
	UpdatedAt *string        `json:"updatedAt,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// CloseSessionRequest is the params of session/close.
type CloseSessionRequest struct {
	SessionID SessionID      `json:"sessionId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// CloseSessionResponse is the result of session/close.
type CloseSessionResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// DeleteSessionRequest is the params of session/delete.
type DeleteSessionRequest struct {
	SessionID SessionID      `json:"sessionId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// DeleteSessionResponse is the result of session/delete.
type DeleteSessionResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// PromptRequest is the params of session/prompt: one user turn.
type PromptRequest struct {
	SessionID SessionID      `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// PromptResponse is the result of session/prompt, sent when the turn ends.
type PromptResponse struct {
	StopReason StopReason     `json:"stopReason"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// StopReason is why a turn ended.
type StopReason string

// Stop reasons.
const (
	StopReasonEndTurn         StopReason = "end_turn"
	StopReasonMaxTokens       StopReason = "max_tokens"
	StopReasonMaxTurnRequests StopReason = "max_turn_requests"
	StopReasonRefusal         StopReason = "refusal"
	StopReasonCancelled       StopReason = "cancelled"
)

// CancelNotification is the params of session/cancel.
type CancelNotification struct {
	SessionID SessionID      `json:"sessionId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// CancelCause is in the cause chain of a turn's context when the editor
// cancelled the turn with session/cancel (errors.As finds it). Params are
// that notification's params as the editor sent them, so an adapter whose
// agent speaks ACP itself can forward the cancel unchanged: its _meta and
// fields this package does not model included.
type CancelCause struct {
	Params json.RawMessage
}

// Error says what ended the turn.
func (c *CancelCause) Error() string { return "turn cancelled by session/cancel" }

// CancelRequestNotification is the params of $/cancel_request.
type CancelRequestNotification struct {
	RequestID RequestID      `json:"requestId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// SessionMode is one mode a session can run in.
type SessionMode struct {
	ID          SessionModeID  `json:"id"`
	Name        string         `json:"name"`
	Description *string        `json:"description,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// SessionModeState is the available modes and the current one.
type SessionModeState struct {
	CurrentModeID  SessionModeID  `json:"currentModeId"`
	AvailableModes []SessionMode  `json:"availableModes"`
	Meta           map[string]any `json:"_meta,omitempty"`
}

// SetSessionModeRequest is the params of session/set_mode.
type SetSessionModeRequest struct {
	SessionID SessionID      `json:"sessionId"`
	ModeID    SessionModeID  `json:"modeId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// SetSessionModeResponse is the result of session/set_mode.
type SetSessionModeResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SetSessionModelRequest is the params of the legacy session/set_model
// method. It is not part of the stable v1 schema; older editors send it to
// choose a model, which newer ones do through a config option.
type SetSessionModelRequest struct {
	SessionID SessionID      `json:"sessionId"`
	ModelID   ModelID        `json:"modelId"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// SetSessionModelResponse is the (empty) result of the legacy
// session/set_model method.
type SetSessionModelResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (r NewSessionRequest) MarshalJSON() ([]byte, error) {
	type plain NewSessionRequest
	v := plain(r)
	v.McpServers = nonNil(v.McpServers)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (r LoadSessionRequest) MarshalJSON() ([]byte, error) {
	type plain LoadSessionRequest
	v := plain(r)
	v.McpServers = nonNil(v.McpServers)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (r ListSessionsResponse) MarshalJSON() ([]byte, error) {
	type plain ListSessionsResponse
	v := plain(r)
	v.Sessions = nonNil(v.Sessions)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (r PromptRequest) MarshalJSON() ([]byte, error) {
	type plain PromptRequest
	v := plain(r)
	v.Prompt = nonNil(v.Prompt)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (s SessionModeState) MarshalJSON() ([]byte, error) {
	type plain SessionModeState
	v := plain(s)
	v.AvailableModes = nonNil(v.AvailableModes)
	return json.Marshal(v)
}
