package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ID is a JSON-RPC request id: a number or a string. It is comparable, so it
// can be a map key. The zero value is "no id": the id of a notification, or
// the null id of an error response to a message whose id could not be read.
//
// Only integer ids that fit in an int64 are accepted as numbers; JSON-RPC 2.0
// says numeric ids SHOULD NOT have fractional parts, and no ACP client sends
// them.
type ID struct {
	kind idKind
	num  int64
	str  string
}

type idKind uint8

const (
	idNone idKind = iota
	idNumber
	idString
)

// Int64ID returns a numeric id.
func Int64ID(n int64) ID { return ID{kind: idNumber, num: n} }

// StringID returns a string id.
func StringID(s string) ID { return ID{kind: idString, str: s} }

// IsValid reports whether id is a number or a string (not the zero ID).
func (id ID) IsValid() bool { return id.kind != idNone }

// Raw returns the id as an int64, a string, or nil for the zero ID.
func (id ID) Raw() any {
	switch id.kind {
	case idNumber:
		return id.num
	case idString:
		return id.str
	}
	return nil
}

// String formats id for logs: a number as digits, a string quoted (so "1" and
// 1 stay distinct), and the zero ID as null.
func (id ID) String() string {
	switch id.kind {
	case idNumber:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	}
	return "null"
}

// MarshalJSON encodes id as a JSON number or string, and the zero ID as null.
func (id ID) MarshalJSON() ([]byte, error) {
	switch id.kind {
	case idNumber:
		return strconv.AppendInt(nil, id.num, 10), nil
	case idString:
		return json.Marshal(id.str)
	}
	return []byte("null"), nil
}

// errBadID is returned by UnmarshalJSON for ids that are neither a string,
// an integer nor null.
var errBadID = errors.New("id must be a string or an integer")

// UnmarshalJSON decodes a JSON string or integer; null decodes to the zero ID.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = trimSpace(data)
	switch {
	case len(data) == 0:
		return errBadID
	case bytes.Equal(data, []byte("null")):
		*id = ID{}
		return nil
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("decoding id: %w", err)
		}
		*id = StringID(s)
		return nil
	case data[0] != '-' && (data[0] < '0' || data[0] > '9'):
		return fmt.Errorf("%w: %.40s", errBadID, data)
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %.40s", errBadID, data)
	}
	*id = Int64ID(n)
	return nil
}

// trimSpace removes JSON insignificant whitespace from both ends of b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
