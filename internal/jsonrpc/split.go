package jsonrpc

import (
	"bytes"
	"encoding/json"
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
// counts as absent. Other members ("jsonrpc" included) are not looked at.
//
// It is one pass over the line. A streaming turn of a child is mostly
// session/update notifications; checking each with json.Valid, then
// scanning it again for its members, was two fifths of the bridge's time
// per forwarded update, and DecodeMessage, which goes through a map, more.
func split(line []byte) (f members, ok bool) {
	s := scanner{b: line}
	i := s.ws(0)
	if i >= len(line) || line[i] != '{' {
		return f, false
	}
	i = s.ws(i + 1)
	if i < len(line) && line[i] == '}' {
		return f, s.ws(i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return f, false
		}
		kEnd, ok := s.str(i)
		if !ok {
			return f, false
		}
		key := line[i+1 : kEnd-1]
		i = s.ws(kEnd)
		if i >= len(line) || line[i] != ':' {
			return f, false
		}
		i = s.ws(i + 1)
		s.spaced = false
		vEnd, ok := s.value(i, 0)
		if !ok {
			return f, false
		}
		v := line[i:vEnd]
		if s.spaced {
			v = compact(v)
		}
		if !f.member(key, v) {
			return f, false
		}
		i = s.ws(vEnd)
		if i < len(line) && line[i] == ',' {
			i = s.ws(i + 1)
			continue
		}
		if i < len(line) && line[i] == '}' {
			break
		}
		return f, false
	}
	if s.ws(i+1) != len(line) {
		return f, false
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

// maxDepth bounds the nesting of arrays and objects, as encoding/json does.
const maxDepth = 10000

// scanner validates JSON values (RFC 8259, as json.Valid does: strings are
// not checked for valid UTF-8) and notes whitespace between tokens.
type scanner struct {
	b      []byte
	spaced bool // whitespace was skipped since it was last reset
}

func (s *scanner) ws(i int) int {
	j := i
	for j < len(s.b) && (s.b[j] == ' ' || s.b[j] == '\t' || s.b[j] == '\r' || s.b[j] == '\n') {
		j++
	}
	if j > i {
		s.spaced = true
	}
	return j
}

// value returns the index just past the value starting at b[i].
func (s *scanner) value(i, depth int) (int, bool) {
	if i >= len(s.b) {
		return i, false
	}
	switch c := s.b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{':
		return s.object(i, depth+1)
	case c == '[':
		return s.array(i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	}
	return i, false
}

func (s *scanner) object(i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = s.str(i); !ok {
			return i, false
		}
		i = s.ws(i)
		if i >= len(s.b) || s.b[i] != ':' {
			return i, false
		}
		if i, ok = s.value(s.ws(i+1), depth); !ok {
			return i, false
		}
		i = s.ws(i)
		if i >= len(s.b) {
			return i, false
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (s *scanner) array(i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = s.value(i, depth); !ok {
			return i, false
		}
		i = s.ws(i)
		if i >= len(s.b) {
			return i, false
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// str returns the index just past the string starting at b[i].
func (s *scanner) str(i int) (int, bool) {
	b := s.b
	for j := i + 1; j < len(b); j++ {
		c := b[j]
		switch {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return j, false
		case c == '\\':
			j++
			if j >= len(b) {
				return j, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !hex(b[j+1]) || !hex(b[j+2]) || !hex(b[j+3]) || !hex(b[j+4]) {
					return j, false
				}
				j += 4
			default:
				return j, false
			}
		}
	}
	return len(b), false
}

func hex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) number(i int) (int, bool) {
	b := s.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func (s *scanner) literal(i int, lit string) (int, bool) {
	if len(s.b)-i >= len(lit) && string(s.b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}
