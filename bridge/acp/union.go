package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// marshalTagged marshals v (which must encode as a JSON object) and inserts
// key:value as its first member. It is how union variants get their
// discriminator without carrying it as a Go field.
func marshalTagged(key, value string, v any) ([]byte, error) {
	return appendTagged(nil, key, value, v)
}

// errNotObject reports a union variant that did not encode as an object.
func errNotObject(body []byte) error {
	return fmt.Errorf("acp: union variant encoded as %.20q, want an object", body)
}

// mergeObjects concatenates the members of JSON objects a and b. Members are
// assumed distinct (they come from disjoint Go structs).
func mergeObjects(a, b []byte) ([]byte, error) {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) < 2 || a[0] != '{' || len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("acp: merging non-objects")
	}
	innerA := bytes.TrimSpace(a[1 : len(a)-1])
	innerB := bytes.TrimSpace(b[1 : len(b)-1])
	var out bytes.Buffer
	out.WriteByte('{')
	out.Write(innerA)
	if len(innerA) > 0 && len(innerB) > 0 {
		out.WriteByte(',')
	}
	out.Write(innerB)
	out.WriteByte('}')
	return out.Bytes(), nil
}

// probe reads the string member key of the JSON object data. found is false
// when the member is absent or null; a non-string member is an error.
func probe(data []byte, key string) (value string, found bool, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return "", false, err
	}
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", false, fmt.Errorf("acp: %q must be a string", key)
	}
	return value, true, nil
}

// hasMember reports whether the JSON object data has member key.
func hasMember(data []byte, key string) (bool, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return false, err
	}
	_, ok := m[key]
	return ok, nil
}

// UnknownVariantError is returned when a union's discriminator names a
// variant this package does not know.
type UnknownVariantError struct {
	// Union is the Go type name of the union (e.g. "ContentBlock").
	Union string
	// Field is the discriminator member (e.g. "type"); for unions told
	// apart by shape, the members looked for.
	Field string
	// Value is the discriminator found on the wire ("" when missing).
	Value string
}

// Error implements error.
func (e *UnknownVariantError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("acp: %s: missing %s", e.Union, e.Field)
	}
	return fmt.Sprintf("acp: %s: unknown %s %q", e.Union, e.Field, e.Value)
}

// variantCountError reports a union value with zero or several variants set.
func variantCountError(union string, n int) error {
	if n == 0 {
		return fmt.Errorf("acp: %s has no variant set", union)
	}
	return fmt.Errorf("acp: %s has %d variants set, want one", union, n)
}

// countSet counts the true values.
func countSet(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}

// nonNil returns s, or an empty slice when s is nil, so that required arrays
// marshal as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Ptr returns a pointer to v. It fills optional fields inline:
// Title: acp.Ptr("Reading file").
func Ptr[T any](v T) *T { return &v }

// NonEmpty is Ptr for an optional string field that is left out when the
// string is empty.
func NonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
