package acp

import (
	"encoding/json"
)

// ToolCallID identifies a tool call within a session.
type ToolCallID string

// ToolKind is the category of a tool, for icons and presentation.
type ToolKind string

// Tool kinds.
const (
	ToolKindRead       ToolKind = "read"
	ToolKindEdit       ToolKind = "edit"
	ToolKindDelete     ToolKind = "delete"
	ToolKindMove       ToolKind = "move"
	ToolKindSearch     ToolKind = "search"
	ToolKindExecute    ToolKind = "execute"
	ToolKindThink      ToolKind = "think"
	ToolKindFetch      ToolKind = "fetch"
	ToolKindSwitchMode ToolKind = "switch_mode"
	ToolKindOther      ToolKind = "other"
)

// ToolCallStatus is the lifecycle state of a tool call.
type ToolCallStatus string

// Tool call statuses.
const (
	ToolCallStatusPending    ToolCallStatus = "pending"
	ToolCallStatusInProgress ToolCallStatus = "in_progress"
	ToolCallStatusCompleted  ToolCallStatus = "completed"
	ToolCallStatusFailed     ToolCallStatus = "failed"
)

// ToolCall announces a new tool call (session update "tool_call").
type ToolCall struct {
	ToolCallID ToolCallID `json:"toolCallId"`
	Title      string     `json:"title"`
	// Name is the programmatic tool name, when known.
	Name      *string            `json:"name,omitempty"`
	Kind      ToolKind           `json:"kind,omitempty"`
	Status    ToolCallStatus     `json:"status,omitempty"`
	Content   []ToolCallContent  `json:"content,omitempty"`
	Locations []ToolCallLocation `json:"locations,omitempty"`
	// RawInput and RawOutput are arbitrary JSON (a json.RawMessage is
	// written as is).
	RawInput  any            `json:"rawInput,omitempty"`
	RawOutput any            `json:"rawOutput,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// ToolCallUpdate patches an existing tool call (session update
// "tool_call_update", and the toolCall of a permission request). Nil fields
// are left unchanged; a non-nil empty Content or Locations clears them.
type ToolCallUpdate struct {
	ToolCallID ToolCallID         `json:"toolCallId"`
	Kind       *ToolKind          `json:"kind,omitempty"`
	Status     *ToolCallStatus    `json:"status,omitempty"`
	Title      *string            `json:"title,omitempty"`
	Name       *string            `json:"name,omitempty"`
	Content    []ToolCallContent  `json:"content,omitzero"`
	Locations  []ToolCallLocation `json:"locations,omitzero"`
	RawInput   any                `json:"rawInput,omitempty"`
	RawOutput  any                `json:"rawOutput,omitempty"`
	Meta       map[string]any     `json:"_meta,omitempty"`
}

// ToolCallLocation is a file (and line) a tool reads or changes, for
// follow-along in the editor.
type ToolCallLocation struct {
	Path string         `json:"path"`
	Line *uint32        `json:"line,omitempty"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// ToolCallContent is content produced by a tool call. Exactly one variant is
// set; the wire discriminator is "type".
type ToolCallContent struct {
	// Content is a plain content block ("content").
	Content *ContentBlock
	// ContentMeta is the _meta of the "content" variant.
	ContentMeta map[string]any
	// Diff is a file change ("diff").
	Diff *Diff
	// Terminal embeds a terminal created with terminal/create ("terminal").
	Terminal *TerminalRef
}

// Diff is a file modification shown as a diff.
type Diff struct {
	Path string `json:"path"`
	// OldText is nil for a new file.
	OldText *string        `json:"oldText,omitempty"`
	NewText string         `json:"newText"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// TerminalRef embeds a client terminal in tool call content (schema name
// "Terminal").
type TerminalRef struct {
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// ToolContentText returns tool call content holding one text block.
func ToolContentText(s string) ToolCallContent {
	b := TextBlock(s)
	return ToolCallContent{Content: &b}
}

// ToolContentDiff returns tool call content holding a diff; oldText is nil for a
// new file.
func ToolContentDiff(path string, oldText *string, newText string) ToolCallContent {
	return ToolCallContent{Diff: &Diff{Path: path, OldText: oldText, NewText: newText}}
}

// MarshalJSON implements json.Marshaler.
func (c ToolCallContent) MarshalJSON() ([]byte, error) {
	return c.appendJSON(nil)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *ToolCallContent) UnmarshalJSON(data []byte) error {
	kind, _, err := probe(data, "type")
	if err != nil {
		return err
	}
	*c = ToolCallContent{}
	switch kind {
	case "content":
		var w struct {
			Content *ContentBlock  `json:"content"`
			Meta    map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		if w.Content == nil {
			return InvalidParams("content", "required")
		}
		c.Content, c.ContentMeta = w.Content, w.Meta
		return nil
	case "diff":
		c.Diff = new(Diff)
		return json.Unmarshal(data, c.Diff)
	case "terminal":
		c.Terminal = new(TerminalRef)
		return json.Unmarshal(data, c.Terminal)
	}
	return &UnknownVariantError{Union: "ToolCallContent", Field: "type", Value: kind}
}
