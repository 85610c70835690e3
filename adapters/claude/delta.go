package claude

import (
	"unicode/utf16"
	"unicode/utf8"
)

// streamDelta is what a stream_event line of a text or thinking delta says,
// read by scanDelta. Its slices alias the line.
type streamDelta struct {
	ok      bool   // the line is such a delta, and valid JSON
	thought bool   // a thinking delta
	text    []byte // the text as it is in the JSON string, escapes and all
	escaped bool   // text holds escapes
	parent  []byte // parent_tool_use_id; nil when null or absent
	apiID   []byte // api_message_id; nil when absent
}

// scanDelta reads a text or thinking delta line in one pass:
//
//	{"type":"stream_event","event":{"type":"content_block_delta","index":0,
//	 "delta":{"type":"text_delta","text":"..."}},"parent_tool_use_id":null,...}
//
// A streamed turn is a line like this per delta, and reading each with
// gjson took four passes (validation, the type, the members, the delta).
// scanDelta validates the whole line as gjson.Valid does and reports ok
// only for this shape, with members in any order; for anything else (other
// events, a member it reads given twice, a key or an id with escapes, a
// parent that is neither a string nor null, nesting deeper than maxDepth) it reports !ok and the line takes the
// general path, which is the reference (FuzzScanDelta holds the two
// equal).
func scanDelta(line []byte) streamDelta {
	s := scanner{b: line}
	var d streamDelta
	var seen, evSeen, dSeen uint8
	var typeOK, evTypeOK, dTypeOK, hasText bool
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			typeOK = s.stringIs("stream_event")
			return once(&seen, 1) && typeOK
		case "event":
			return once(&seen, 2) && s.object(func(key []byte) bool {
				switch string(key) {
				case "type":
					evTypeOK = s.stringIs("content_block_delta")
					return once(&evSeen, 1) && evTypeOK
				case "delta":
					return once(&evSeen, 2) && s.object(func(key []byte) bool {
						switch string(key) {
						case "type":
							switch v, _, ok := s.str(); {
							case !ok:
								return false
							case string(v) == "text_delta":
								dTypeOK = true
							case string(v) == "thinking_delta":
								dTypeOK, d.thought = true, true
							}
							return once(&dSeen, 1)
						case "text", "thinking":
							if !once(&dSeen, 2) {
								return false
							}
							v, esc, ok := s.str()
							d.text, d.escaped, hasText = v, esc, ok
							// The field must match the type, which may
							// come after it: checked below.
							if string(key) == "thinking" {
								dSeen |= 4
							} else {
								dSeen |= 8
							}
							return ok
						}
						return s.value()
					})
				}
				return s.value()
			})
		case "parent_tool_use_id":
			if !once(&seen, 4) {
				return false
			}
			if s.literal("null") {
				return true
			}
			v, esc, ok := s.str()
			d.parent = v
			return ok && !esc // escapes: the general path unescapes
		case "api_message_id":
			if !once(&seen, 8) {
				return false
			}
			v, esc, ok := s.str()
			d.apiID = v
			return ok && !esc
		}
		return s.value()
	})
	s.ws()
	wantField := uint8(8)
	if d.thought {
		wantField = 4
	}
	if !ok || s.i != len(line) || !typeOK || !evTypeOK || !dTypeOK || !hasText || dSeen&12 != wantField {
		return streamDelta{}
	}
	d.ok = true
	return d
}

// once sets bit in *seen and reports whether it was clear.
func once(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// appendText appends the delta's text, unescaped.
func (d *streamDelta) appendText(dst []byte) []byte {
	if !d.escaped {
		return append(dst, d.text...)
	}
	return appendUnescaped(dst, d.text)
}

// scanner is a validating JSON reader over b, with the grammar gjson.Valid
// accepts, and a bound on nesting.
type scanner struct {
	b     []byte
	i     int
	depth int // objects and arrays open
}

// maxDepth bounds the nesting of what scanner accepts. Reading is
// recursive: a line of millions of brackets (gjson.Valid's recursion dies
// of it, and no recovery is possible from that) is not JSON to the bridge.
const maxDepth = 1000

// validJSON reports whether b is one JSON value, nested at most maxDepth
// deep. Below that depth it agrees with gjson.Valid.
func validJSON(b []byte) bool {
	s := scanner{b: b}
	if !s.value() {
		return false
	}
	s.ws()
	return s.i == len(b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads an object, calling member with each key (without escapes:
// a key with escapes fails) positioned at its value, which member must
// read.
func (s *scanner) object(member func(key []byte) bool) bool {
	return s.list('{', '}', func() bool {
		key, esc, ok := s.str()
		if !ok || esc {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		return member(key)
	})
}

// array reads an array of any values.
func (s *scanner) array() bool { return s.list('[', ']', s.value) }

// list reads begin, items separated by commas, and end.
func (s *scanner) list(begin, end byte, item func() bool) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != begin || s.depth == maxDepth {
		return false
	}
	s.depth++
	defer func() { s.depth-- }()
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == end {
		s.i++
		return true
	}
	for {
		if !item() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case end:
			s.i++
			return true
		default:
			return false
		}
	}
}

// value reads any value.
func (s *scanner) value() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(func([]byte) bool { return s.value() })
	case c == '[':
		return s.array()
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// str reads a string and returns its contents as they are in the JSON.
func (s *scanner) str() (v []byte, escaped, ok bool) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			v = s.b[start:s.i:s.i]
			s.i++
			return v, escaped, true
		case c < ' ':
			return nil, false, false
		case c == '\\':
			escaped = true
			s.i++
			if s.i >= len(s.b) {
				return nil, false, false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 >= len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.i += 4
			default:
				return nil, false, false
			}
		}
		s.i++
	}
	return nil, false, false
}

// stringIs reads a string and reports whether it is want (written without
// escapes).
func (s *scanner) stringIs(want string) bool {
	v, esc, ok := s.str()
	return ok && !esc && string(v) == want
}

func (s *scanner) literal(lit string) bool {
	s.ws()
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	digits := func() bool {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n > 0
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		return false
	}
	if s.b[s.i] == '0' {
		s.i++
	} else if !digits() {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !digits() {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// appendUnescaped appends the JSON string contents src (valid, as str
// returns them) unescaped, as gjson does: a surrogate escape takes the
// escape after it as its pair, whatever it is, and a lone one becomes
// U+FFFD.
func appendUnescaped(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch src[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hex4(src[i+1:]))
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(src) && src[i+1] == '\\' && src[i+2] == 'u' {
				r = utf16.DecodeRune(r, rune(hex4(src[i+3:])))
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, src[i])
		}
	}
	return dst
}

func hex4(b []byte) uint32 {
	var v uint32
	for _, c := range b[:4] {
		v <<= 4
		switch {
		case c <= '9':
			v |= uint32(c - '0')
		case c >= 'a':
			v |= uint32(c - 'a' + 10)
		default:
			v |= uint32(c - 'A' + 10)
		}
	}
	return v
}
