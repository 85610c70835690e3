package acp

// This file models the part of elicitation/create the bridge sends: form
// mode, scoped to a session (and a tool call), with string and multi-select
// fields. URL mode, request scope and the number, integer and boolean
// property schemas are left out until something uses them.

// Elicitation modes.
const (
	ElicitationModeForm = "form"
)

// Elicitation actions: what the user did with the form.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)

// CreateElicitationRequest is the params of elicitation/create in form mode,
// tied to a session and optionally to one of its tool calls.
type CreateElicitationRequest struct {
	SessionID  SessionID  `json:"sessionId"`
	ToolCallID ToolCallID `json:"toolCallId,omitempty"`
	// Mode is ElicitationModeForm.
	Mode            string            `json:"mode"`
	Message         string            `json:"message"`
	RequestedSchema ElicitationSchema `json:"requestedSchema"`
	Meta            map[string]any    `json:"_meta,omitempty"`
}

// ElicitationSchema is the form: an object schema whose properties are its
// fields.
type ElicitationSchema struct {
	// Type is always "object".
	Type        string                         `json:"type"`
	Title       string                         `json:"title,omitempty"`
	Description string                         `json:"description,omitempty"`
	Properties  map[string]ElicitationProperty `json:"properties"`
	Required    []string                       `json:"required,omitempty"`
}

// ElicitationProperty is one form field. A single choice is a "string" with
// OneOf; a multiple choice an "array" whose Items list the choices; a free
// text a "string" with neither.
type ElicitationProperty struct {
	Type        string                  `json:"type"`
	Title       string                  `json:"title,omitempty"`
	Description string                  `json:"description,omitempty"`
	OneOf       []EnumOption            `json:"oneOf,omitempty"`
	Items       *TitledMultiSelectItems `json:"items,omitempty"`
	MinItems    *uint64                 `json:"minItems,omitempty"`
}

// EnumOption is one titled choice.
type EnumOption struct {
	Const       string `json:"const"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// TitledMultiSelectItems lists the choices of a multi-select field.
type TitledMultiSelectItems struct {
	AnyOf []EnumOption `json:"anyOf"`
}

// CreateElicitationResponse is the result of elicitation/create. Content is
// set when Action is ElicitationAccept: field name to a string, or to a
// list of strings for a multi-select field.
type CreateElicitationResponse struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    map[string]any `json:"_meta,omitempty"`
}
