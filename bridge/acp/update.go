package acp

import (
	"encoding/json"
)

// SessionNotification is the params of session/update.
type SessionNotification struct {
	SessionID SessionID      `json:"sessionId"`
	Update    SessionUpdate  `json:"update"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// SessionUpdate is one streamed update of a session. Exactly one variant is
// set; the wire discriminator is "sessionUpdate".
type SessionUpdate struct {
	UserMessageChunk        *ContentChunk            // "user_message_chunk"
	AgentMessageChunk       *ContentChunk            // "agent_message_chunk"
	AgentThoughtChunk       *ContentChunk            // "agent_thought_chunk"
	ToolCall                *ToolCall                // "tool_call"
	ToolCallUpdate          *ToolCallUpdate          // "tool_call_update"
	Plan                    *Plan                    // "plan"
	AvailableCommandsUpdate *AvailableCommandsUpdate // "available_commands_update"
	CurrentModeUpdate       *CurrentModeUpdate       // "current_mode_update"
	ConfigOptionUpdate      *ConfigOptionUpdate      // "config_option_update"
	SessionInfoUpdate       *SessionInfoUpdate       // "session_info_update"
	UsageUpdate             *UsageUpdate             // "usage_update"
	// Notice may only be sent when the client advertised
	// session.notices.
	Notice *Notice // "notice"
	// CompactionUpdate and CompactionSummaryChunk may only be sent when the
	// client advertised session.compaction.
	CompactionUpdate       *CompactionUpdate       // "compaction_update"
	CompactionSummaryChunk *CompactionSummaryChunk // "compaction_summary_chunk"
	// SubagentUpdate may only be sent when the client advertised
	// subagents (unstable).
	SubagentUpdate *SubagentUpdate // "subagent_update"
}

// ContentChunk is one streamed piece of a message.
type ContentChunk struct {
	Content ContentBlock `json:"content"`
	// MessageID groups the chunks of one message, when the agent knows it.
	MessageID *MessageID     `json:"messageId,omitempty"`
	Meta      map[string]any `json:"_meta,omitempty"`
}

// MessageID identifies a message within a session.
type MessageID string

// Plan is the agent's execution plan. Every plan update carries the full
// list of entries.
type Plan struct {
	Entries []PlanEntry    `json:"entries"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// PlanEntry is one task of a plan.
type PlanEntry struct {
	Content  string            `json:"content"`
	Priority PlanEntryPriority `json:"priority"`
	Status   PlanEntryStatus   `json:"status"`
	Meta     map[string]any    `json:"_meta,omitempty"`
}

// PlanEntryPriority is the importance of a plan entry.
type PlanEntryPriority string

// Plan entry priorities.
const (
	PlanEntryPriorityHigh   PlanEntryPriority = "high"
	PlanEntryPriorityMedium PlanEntryPriority = "medium"
	PlanEntryPriorityLow    PlanEntryPriority = "low"
)

// PlanEntryStatus is the progress of a plan entry.
type PlanEntryStatus string

// Plan entry statuses.
const (
	PlanEntryStatusPending    PlanEntryStatus = "pending"
	PlanEntryStatusInProgress PlanEntryStatus = "in_progress"
	PlanEntryStatusCompleted  PlanEntryStatus = "completed"
)

// AvailableCommandsUpdate lists the session's slash commands.
type AvailableCommandsUpdate struct {
	AvailableCommands []AvailableCommand `json:"availableCommands"`
	Meta              map[string]any     `json:"_meta,omitempty"`
}

// AvailableCommand is one slash command.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
	Meta        map[string]any         `json:"_meta,omitempty"`
}

// AvailableCommandInput describes a command's input. The schema has a
// single shape, unstructured text, so this is a plain struct
// (UnstructuredCommandInput's fields).
type AvailableCommandInput = UnstructuredCommandInput

// UnstructuredCommandInput means everything typed after the command name is
// its input.
type UnstructuredCommandInput struct {
	Hint string         `json:"hint"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// CurrentModeUpdate reports a mode change.
type CurrentModeUpdate struct {
	CurrentModeID SessionModeID  `json:"currentModeId"`
	Meta          map[string]any `json:"_meta,omitempty"`
}

// ConfigOptionUpdate carries the full new list of config options.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// SessionInfoUpdate patches session metadata: absent fields are unchanged,
// null clears them.
type SessionInfoUpdate struct {
	Title     Nullable[string] `json:"title,omitzero"`
	UpdatedAt Nullable[string] `json:"updatedAt,omitzero"`
	Meta      map[string]any   `json:"_meta,omitempty"`
}

// UsageUpdate reports context window use and cost.
type UsageUpdate struct {
	// Used is the number of tokens currently in context.
	Used uint64 `json:"used"`
	// Size is the context window size in tokens.
	Size uint64         `json:"size"`
	Cost *Cost          `json:"cost,omitempty"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// Cost is the cumulative cost of a session.
type Cost struct {
	Amount float64 `json:"amount"`
	// Currency is an ISO 4217 code such as "USD", or another unit.
	Currency string         `json:"currency"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// Notice is fire-and-forget information for the user, not part of the
// session history.
type Notice struct {
	Severity    NoticeSeverity `json:"severity"`
	Title       string         `json:"title"`
	Description *string        `json:"description,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// NoticeSeverity is a presentation hint for a notice; other values are
// allowed.
type NoticeSeverity string

// Notice severities.
const (
	NoticeSeverityInfo    NoticeSeverity = "info"
	NoticeSeverityWarning NoticeSeverity = "warning"
	NoticeSeverityError   NoticeSeverity = "error"
)

// CompactionID identifies a context compaction within a session.
type CompactionID string

// CompactionStatus is the lifecycle state of a compaction; other values are
// allowed.
type CompactionStatus string

// Compaction statuses.
const (
	CompactionStatusInProgress CompactionStatus = "in_progress"
	CompactionStatusCompleted  CompactionStatus = "completed"
	CompactionStatusFailed     CompactionStatus = "failed"
	CompactionStatusCancelled  CompactionStatus = "cancelled"
)

// CompactionUpdate creates or patches a context compaction. Summary and
// Error have patch semantics: absent leaves them, null clears them.
type CompactionUpdate struct {
	CompactionID CompactionID             `json:"compactionId"`
	Status       CompactionStatus         `json:"status"`
	Summary      Nullable[[]ContentBlock] `json:"summary,omitzero"`
	Error        Nullable[string]         `json:"error,omitzero"`
	Meta         map[string]any           `json:"_meta,omitempty"`
}

// CompactionSummaryChunk appends one block to a compaction's summary.
type CompactionSummaryChunk struct {
	CompactionID CompactionID   `json:"compactionId"`
	Content      ContentBlock   `json:"content"`
	Meta         map[string]any `json:"_meta,omitempty"`
}

// UpdateAgentText returns an agent_message_chunk holding text.
func UpdateAgentText(s string) SessionUpdate {
	return SessionUpdate{AgentMessageChunk: &ContentChunk{Content: TextBlock(s)}}
}

// UpdateThought returns an agent_thought_chunk holding text.
func UpdateThought(s string) SessionUpdate {
	return SessionUpdate{AgentThoughtChunk: &ContentChunk{Content: TextBlock(s)}}
}

// UpdateUserText returns a user_message_chunk holding text (used when
// replaying history on session/load).
func UpdateUserText(s string) SessionUpdate {
	return SessionUpdate{UserMessageChunk: &ContentChunk{Content: TextBlock(s)}}
}

// MarshalJSON implements json.Marshaler.
func (p Plan) MarshalJSON() ([]byte, error) {
	type plain Plan
	v := plain(p)
	v.Entries = nonNil(v.Entries)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (u AvailableCommandsUpdate) MarshalJSON() ([]byte, error) {
	type plain AvailableCommandsUpdate
	v := plain(u)
	v.AvailableCommands = nonNil(v.AvailableCommands)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (u ConfigOptionUpdate) MarshalJSON() ([]byte, error) {
	type plain ConfigOptionUpdate
	v := plain(u)
	v.ConfigOptions = nonNil(v.ConfigOptions)
	return json.Marshal(v)
}

// variant returns the discriminator and value of the first variant that is
// set, and how many are set. It allocates nothing: it runs for every update.
func (u *SessionUpdate) variant() (tag string, val any, n int) {
	pick := func(t string, set bool, v any) {
		if set {
			if n == 0 {
				tag, val = t, v
			}
			n++
		}
	}
	pick("user_message_chunk", u.UserMessageChunk != nil, u.UserMessageChunk)
	pick("agent_message_chunk", u.AgentMessageChunk != nil, u.AgentMessageChunk)
	pick("agent_thought_chunk", u.AgentThoughtChunk != nil, u.AgentThoughtChunk)
	pick("tool_call", u.ToolCall != nil, u.ToolCall)
	pick("tool_call_update", u.ToolCallUpdate != nil, u.ToolCallUpdate)
	pick("plan", u.Plan != nil, u.Plan)
	pick("available_commands_update", u.AvailableCommandsUpdate != nil, u.AvailableCommandsUpdate)
	pick("current_mode_update", u.CurrentModeUpdate != nil, u.CurrentModeUpdate)
	pick("config_option_update", u.ConfigOptionUpdate != nil, u.ConfigOptionUpdate)
	pick("session_info_update", u.SessionInfoUpdate != nil, u.SessionInfoUpdate)
	pick("usage_update", u.UsageUpdate != nil, u.UsageUpdate)
	pick("notice", u.Notice != nil, u.Notice)
	pick("compaction_update", u.CompactionUpdate != nil, u.CompactionUpdate)
	pick("compaction_summary_chunk", u.CompactionSummaryChunk != nil, u.CompactionSummaryChunk)
	pick("subagent_update", u.SubagentUpdate != nil, u.SubagentUpdate)
	return tag, val, n
}

// Kind returns the wire discriminator of the variant that is set, or "" when
// none is.
func (u SessionUpdate) Kind() string {
	tag, _, _ := u.variant()
	return tag
}

// MarshalJSON implements json.Marshaler.
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	return u.appendJSON(nil)
}

// UnmarshalJSON implements json.Unmarshaler.
func (u *SessionUpdate) UnmarshalJSON(data []byte) error {
	kind, _, err := probe(data, "sessionUpdate")
	if err != nil {
		return err
	}
	*u = SessionUpdate{}
	var target any
	switch kind {
	case "user_message_chunk":
		u.UserMessageChunk = new(ContentChunk)
		target = u.UserMessageChunk
	case "agent_message_chunk":
		u.AgentMessageChunk = new(ContentChunk)
		target = u.AgentMessageChunk
	case "agent_thought_chunk":
		u.AgentThoughtChunk = new(ContentChunk)
		target = u.AgentThoughtChunk
	case "tool_call":
		u.ToolCall = new(ToolCall)
		target = u.ToolCall
	case "tool_call_update":
		u.ToolCallUpdate = new(ToolCallUpdate)
		target = u.ToolCallUpdate
	case "plan":
		u.Plan = new(Plan)
		target = u.Plan
	case "available_commands_update":
		u.AvailableCommandsUpdate = new(AvailableCommandsUpdate)
		target = u.AvailableCommandsUpdate
	case "current_mode_update":
		u.CurrentModeUpdate = new(CurrentModeUpdate)
		target = u.CurrentModeUpdate
	case "config_option_update":
		u.ConfigOptionUpdate = new(ConfigOptionUpdate)
		target = u.ConfigOptionUpdate
	case "session_info_update":
		u.SessionInfoUpdate = new(SessionInfoUpdate)
		target = u.SessionInfoUpdate
	case "usage_update":
		u.UsageUpdate = new(UsageUpdate)
		target = u.UsageUpdate
	case "notice":
		u.Notice = new(Notice)
		target = u.Notice
	case "compaction_update":
		u.CompactionUpdate = new(CompactionUpdate)
		target = u.CompactionUpdate
	case "compaction_summary_chunk":
		u.CompactionSummaryChunk = new(CompactionSummaryChunk)
		target = u.CompactionSummaryChunk
	case "subagent_update":
		u.SubagentUpdate = new(SubagentUpdate)
		target = u.SubagentUpdate
	default:
		return &UnknownVariantError{Union: "SessionUpdate", Field: "sessionUpdate", Value: kind}
	}
	return json.Unmarshal(data, target)
}
