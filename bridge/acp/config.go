package acp

import (
	"encoding/json"
	"fmt"
)

// SessionConfigID identifies a session config option.
type SessionConfigID string

// SessionConfigValueID identifies one value of a select config option.
type SessionConfigValueID string

// SessionConfigGroupID identifies a group of select values.
type SessionConfigGroupID string

// SessionConfigOptionCategory is a UX hint for a config option; other
// values are allowed.
type SessionConfigOptionCategory string

// Config option categories.
const (
	SessionConfigOptionCategoryMode         SessionConfigOptionCategory = "mode"
	SessionConfigOptionCategoryModel        SessionConfigOptionCategory = "model"
	SessionConfigOptionCategoryModelConfig  SessionConfigOptionCategory = "model_config"
	SessionConfigOptionCategoryThoughtLevel SessionConfigOptionCategory = "thought_level"
)

// SessionConfigOption is one session setting and its current value. The
// common fields sit beside exactly one variant; the wire discriminator is
// "type" ("select" or "boolean").
type SessionConfigOption struct {
	ID          SessionConfigID              `json:"id"`
	Name        string                       `json:"name"`
	Description *string                      `json:"description,omitempty"`
	Category    *SessionConfigOptionCategory `json:"category,omitempty"`
	Meta        map[string]any               `json:"_meta,omitempty"`

	// Select is a single-value dropdown ("select").
	Select *SessionConfigSelect `json:"-"`
	// Boolean is an on/off toggle ("boolean"); only send it to clients that
	// advertised session.configOptions.boolean.
	Boolean *SessionConfigBoolean `json:"-"`
}

// SessionConfigSelect is the payload of a select option.
type SessionConfigSelect struct {
	CurrentValue SessionConfigValueID       `json:"currentValue"`
	Options      SessionConfigSelectOptions `json:"options"`
}

// SessionConfigBoolean is the payload of a boolean option.
type SessionConfigBoolean struct {
	CurrentValue bool `json:"currentValue"`
}

// SessionConfigSelectOptions is the list of values of a select option: flat
// or grouped. On the wire it is an array either way; grouped entries carry
// a "group" member. Set at most one field; when neither is set it marshals
// as an empty flat list.
type SessionConfigSelectOptions struct {
	Ungrouped []SessionConfigSelectOption
	Grouped   []SessionConfigSelectGroup
}

// Has reports whether id is one of the option's values, grouped or not.
func (o SessionConfigSelectOptions) Has(id SessionConfigValueID) bool {
	for _, v := range o.Ungrouped {
		if v.Value == id {
			return true
		}
	}
	for _, g := range o.Grouped {
		for _, v := range g.Options {
			if v.Value == id {
				return true
			}
		}
	}
	return false
}

// SessionConfigSelectOption is one value of a select option.
type SessionConfigSelectOption struct {
	Value       SessionConfigValueID `json:"value"`
	Name        string               `json:"name"`
	Description *string              `json:"description,omitempty"`
	Meta        map[string]any       `json:"_meta,omitempty"`
}

// SessionConfigSelectGroup is a named group of select values.
type SessionConfigSelectGroup struct {
	Group   SessionConfigGroupID        `json:"group"`
	Name    string                      `json:"name"`
	Options []SessionConfigSelectOption `json:"options"`
	Meta    map[string]any              `json:"_meta,omitempty"`
}

// SetSessionConfigOptionRequest is the params of session/set_config_option.
type SetSessionConfigOptionRequest struct {
	SessionID SessionID       `json:"sessionId"`
	ConfigID  SessionConfigID `json:"configId"`
	// Value is the new value; on the wire it is flattened into the request
	// ("value", plus "type":"boolean" for booleans).
	Value ConfigOptionValue `json:"-"`
	Meta  map[string]any    `json:"_meta,omitempty"`
}

// ConfigOptionValue is the value of a set_config_option request: a value id
// for select options, or a boolean. At most one field is set; neither means
// the value was missing.
type ConfigOptionValue struct {
	ID      *SessionConfigValueID
	Boolean *bool
}

// SetSessionConfigOptionResponse is the result of
// session/set_config_option: the full new list of options.
type SetSessionConfigOptionResponse struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	if n := countSet(o.Select != nil, o.Boolean != nil); n != 1 {
		return nil, variantCountError("SessionConfigOption", n)
	}
	type plain SessionConfigOption
	common, err := json.Marshal(plain(o))
	if err != nil {
		return nil, err
	}
	kind, variant := "select", any(o.Select)
	if o.Boolean != nil {
		kind, variant = "boolean", o.Boolean
	}
	body, err := marshalTagged("type", kind, variant)
	if err != nil {
		return nil, err
	}
	return mergeObjects(common, body)
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *SessionConfigOption) UnmarshalJSON(data []byte) error {
	kind, _, err := probe(data, "type")
	if err != nil {
		return err
	}
	type plain SessionConfigOption
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*o = SessionConfigOption(p)
	switch kind {
	case "select":
		o.Select = new(SessionConfigSelect)
		return json.Unmarshal(data, o.Select)
	case "boolean":
		o.Boolean = new(SessionConfigBoolean)
		return json.Unmarshal(data, o.Boolean)
	}
	return &UnknownVariantError{Union: "SessionConfigOption", Field: "type", Value: kind}
}

// MarshalJSON implements json.Marshaler.
func (s SessionConfigSelectOptions) MarshalJSON() ([]byte, error) {
	if s.Grouped != nil {
		if s.Ungrouped != nil {
			return nil, fmt.Errorf("acp: SessionConfigSelectOptions has both grouped and ungrouped values")
		}
		return json.Marshal(s.Grouped)
	}
	return json.Marshal(nonNil(s.Ungrouped))
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *SessionConfigSelectOptions) UnmarshalJSON(data []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return err
	}
	*s = SessionConfigSelectOptions{}
	if len(items) > 0 {
		grouped, err := hasMember(items[0], "group")
		if err != nil {
			return err
		}
		if grouped {
			return json.Unmarshal(data, &s.Grouped)
		}
	}
	return json.Unmarshal(data, &s.Ungrouped)
}

// MarshalJSON implements json.Marshaler.
func (g SessionConfigSelectGroup) MarshalJSON() ([]byte, error) {
	type plain SessionConfigSelectGroup
	v := plain(g)
	v.Options = nonNil(v.Options)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (r SetSessionConfigOptionResponse) MarshalJSON() ([]byte, error) {
	type plain SetSessionConfigOptionResponse
	v := plain(r)
	v.ConfigOptions = nonNil(v.ConfigOptions)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (r SetSessionConfigOptionRequest) MarshalJSON() ([]byte, error) {
	type plain SetSessionConfigOptionRequest
	common, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	var value []byte
	switch {
	case r.Value.Boolean != nil && r.Value.ID != nil:
		return nil, fmt.Errorf("acp: ConfigOptionValue has both an id and a boolean")
	case r.Value.Boolean != nil:
		value, err = json.Marshal(struct {
			Type  string `json:"type"`
			Value bool   `json:"value"`
		}{"boolean", *r.Value.Boolean})
	case r.Value.ID != nil:
		value, err = json.Marshal(struct {
			Value SessionConfigValueID `json:"value"`
		}{*r.Value.ID})
	default:
		return common, nil
	}
	if err != nil {
		return nil, err
	}
	return mergeObjects(common, value)
}

// UnmarshalJSON implements json.Unmarshaler. A "boolean" type needs a
// boolean value; an absent or unknown type with a string value is a value
// id, as the schema prescribes.
func (r *SetSessionConfigOptionRequest) UnmarshalJSON(data []byte) error {
	type plain SetSessionConfigOptionRequest
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	var w struct {
		Type  *string         `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = SetSessionConfigOptionRequest(p)
	if len(w.Value) == 0 || string(w.Value) == "null" {
		return nil
	}
	if w.Type != nil && *w.Type == "boolean" {
		var b bool
		if err := json.Unmarshal(w.Value, &b); err != nil {
			return InvalidParams("value", "expected boolean")
		}
		r.Value.Boolean = &b
		return nil
	}
	var id SessionConfigValueID
	if err := json.Unmarshal(w.Value, &id); err != nil {
		return InvalidParams("value", "expected string")
	}
	r.Value.ID = &id
	return nil
}
