package jsonrpc

import (
	"bytes"
	"encoding/json"

	"github.com/acpbridge/acpbridge/internal/jsonscan"
)

// members are the top-level members of a message that routing reads, as
// split found them: raw JSON, compact, aliasing the line.
type members struct {
	id, method, params, result []byte
	err                        *Error
}

// split checks that line is one JSON object and reads the top-level
// members a JSON-RPC message routes on, without decoding the values:
// params and results pass through as the peer wrote them, compacted when
// the peer wrote whitespace between their tokens, so what is forwarded is
// always compact, valid JSON. ok is false for anything else, valid JSON
// that is not an object included, and for a "method" that is not a string
// or an "error" that is not an error object. An "id" or "error" of null
// counts as absent. Other members ("jsonrpc" included) are not looked at,
// and a key is compared as written (escapes make it another member).
//
// It is one pass over the line. A streaming turn of a child is mostly
// session/update notifications; checking each with json.Valid, then
// scanning it again for its members, was two fifths of the bridge's time
// per forwarded update, and DecodeMessage, which goes through a map, more.
func split(line []byte) (f members, ok bool) {
	s := jsonscan.Scanner{B: line, MaxDepth: maxDepth}
	ok = s.Object(func(key []byte, _ bool) bool {
		s.WS()
		start := s.I
		s.Spaced = false
		if !s.Value() {
			return false
		}
		v := line[start:s.I]
		if s.Spaced {
			v = compact(v)
		}
		return f.member(key, v)
	})
	if s.WS(); !ok || s.I != len(line) {
		return members{}, false
	}
	if string(f.id) == "null" {
		f.id = nil
	}
	return f, true
}

// member stores one top-level member; false means a member a JSON-RPC
// message cannot have in that shape.
func (f *members) member(key, v []byte) bool {
	switch string(key) {
	case "id":
		f.id = v
	case "method":
		if v[0] != '"' {
			return false
		}
		f.method = v
	case "params":
		f.params = v
	case "result":
		f.result = v
	case "error":
		if string(v) == "null" {
			break
		}
		f.err = new(Error)
		if json.Unmarshal(v, f.err) != nil {
			return false
		}
	}
	return true
}

// compact returns v without whitespace between tokens.
func compact(v []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

// maxDepth bounds the nesting of arrays and objects, as encoding/json does
// (the message itself counts).
const maxDepth = jsonscan.DefaultMaxDepth
