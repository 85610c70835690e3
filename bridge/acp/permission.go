package acp

import (
	"encoding/json"
)

// PermissionOptionID identifies a permission option.
type PermissionOptionID string

// PermissionOptionKind hints at what choosing an option means.
type PermissionOptionKind string

// Permission option kinds.
const (
	PermissionOptionKindAllowOnce    PermissionOptionKind = "allow_once"
	PermissionOptionKindAllowAlways  PermissionOptionKind = "allow_always"
	PermissionOptionKindRejectOnce   PermissionOptionKind = "reject_once"
	PermissionOptionKindRejectAlways PermissionOptionKind = "reject_always"
)

// PermissionOption is one choice offered to the user.
type PermissionOption struct {
	OptionID PermissionOptionID   `json:"optionId"`
	Name     string               `json:"name"`
	Kind     PermissionOptionKind `json:"kind"`
	Meta     map[string]any       `json:"_meta,omitempty"`
}

// RequestPermissionRequest is the params of session/request_permission.
type RequestPermissionRequest struct {
	SessionID SessionID          `json:"sessionId"`
	ToolCall  ToolCallUpdate     `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      map[string]any     `json:"_meta,omitempty"`
}

// RequestPermissionResponse is the result of session/request_permission.
type RequestPermissionResponse struct {
	Outcome RequestPermissionOutcome `json:"outcome"`
	Meta    map[string]any           `json:"_meta,omitempty"`
}

// RequestPermissionOutcome is the user's decision. Exactly one variant is
// set; the wire discriminator is "outcome".
type RequestPermissionOutcome struct {
	// Cancelled means the turn was cancelled before the user answered.
	Cancelled *CancelledPermissionOutcome // "cancelled"
	// Selected carries the option the user chose.
	Selected *SelectedPermissionOutcome // "selected"
}

// CancelledPermissionOutcome is the (empty) body of a cancelled outcome.
type CancelledPermissionOutcome struct{}

// SelectedPermissionOutcome names the option the user chose.
type SelectedPermissionOutcome struct {
	OptionID PermissionOptionID `json:"optionId"`
	Meta     map[string]any     `json:"_meta,omitempty"`
}

// PermissionSelected returns the outcome "the user chose id".
func PermissionSelected(id PermissionOptionID) RequestPermissionOutcome {
	return RequestPermissionOutcome{Selected: &SelectedPermissionOutcome{OptionID: id}}
}

// PermissionCancelled returns the outcome "the turn was cancelled".
func PermissionCancelled() RequestPermissionOutcome {
	return RequestPermissionOutcome{Cancelled: &CancelledPermissionOutcome{}}
}

// MarshalJSON implements json.Marshaler.
func (r RequestPermissionRequest) MarshalJSON() ([]byte, error) {
	type plain RequestPermissionRequest
	v := plain(r)
	v.Options = nonNil(v.Options)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (o RequestPermissionOutcome) MarshalJSON() ([]byte, error) {
	if n := countSet(o.Cancelled != nil, o.Selected != nil); n != 1 {
		return nil, variantCountError("RequestPermissionOutcome", n)
	}
	if o.Cancelled != nil {
		return []byte(`{"outcome":"cancelled"}`), nil
	}
	return marshalTagged("outcome", "selected", o.Selected)
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *RequestPermissionOutcome) UnmarshalJSON(data []byte) error {
	kind, _, err := probe(data, "outcome")
	if err != nil {
		return err
	}
	*o = RequestPermissionOutcome{}
	switch kind {
	case "cancelled":
		o.Cancelled = &CancelledPermissionOutcome{}
		return nil
	case "selected":
		o.Selected = new(SelectedPermissionOutcome)
		return json.Unmarshal(data, o.Selected)
	}
	return &UnknownVariantError{Union: "RequestPermissionOutcome", Field: "outcome", Value: kind}
}
