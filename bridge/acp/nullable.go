package acp

import (
	"encoding/json"
)

// Nullable is an optional field with three wire states, for the few fields
// the schema gives patch semantics ("omitted leaves it unchanged, null
// clears it"): absent (the zero value, omitted through the omitzero tag),
// null, or a value.
type Nullable[T any] struct {
	// Value is the value sent when Present is true and Null is false.
	Value T
	// Present is true when the field is on the wire.
	Present bool
	// Null is true when the field is on the wire as null.
	Null bool
}

// Set returns a Nullable carrying v.
func Set[T any](v T) Nullable[T] { return Nullable[T]{Value: v, Present: true} }

// Null returns a Nullable that is on the wire as null (clear the value).
func Null[T any]() Nullable[T] { return Nullable[T]{Present: true, Null: true} }

// IsZero reports whether the field is absent; encoding/json's omitzero
// uses it to leave the field out.
func (n Nullable[T]) IsZero() bool { return !n.Present }

// Get returns the value and whether one is set (present and not null).
func (n Nullable[T]) Get() (T, bool) { return n.Value, n.Present && !n.Null }

// MarshalJSON implements json.Marshaler.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Present || n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	var zero T
	*n = Nullable[T]{Present: true}
	if string(data) == "null" {
		n.Null = true
		n.Value = zero
		return nil
	}
	return json.Unmarshal(data, &n.Value)
}
