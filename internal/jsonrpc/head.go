package jsonrpc

// headSize is how much of a message over the size limit is kept to find its
// id: senders put "jsonrpc", "id" and "method" before "params" or
// "result", where the bulk is, so the id is in the first few dozen bytes.
const headSize = 64 << 10

// msgHead is what scanHead learned from the start of a message.
type msgHead struct {
	id       ID   // the top-level "id", or the zero ID when none was seen
	response bool // a top-level "result" or "error" was seen, and no "method"
}

// scanHead reads the top-level members of the JSON object that b starts
// with, as far as b goes (b may end anywhere inside the message), and
// returns the id it names. Nested values are skipped, so an "id" inside
// params does not count. Anything that is not JSON before the end of b
// makes the id unknown: a reply must not name an id read from garbage.
func scanHead(b []byte) msgHead {
	s := headScanner{b: b}
	var h msgHead
	var method, result bool
	if s.ws(); !s.eat('{') {
		return msgHead{}
	}
	for {
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == '}' {
			break
		}
		key, ok := s.str()
		if s.ws(); !ok || !s.eat(':') {
			break
		}
		s.ws()
		start := s.i
		done := s.value()
		switch string(key) {
		case `"id"`:
			var id ID
			if !done || id.UnmarshalJSON(s.b[start:s.i]) != nil {
				h.id = ID{}
				return h
			}
			h.id = id
		case `"method"`:
			method = true
		case `"result"`, `"error"`:
			result = true
		}
		s.ws()
		if !done || s.i >= len(s.b) || s.b[s.i] == '}' || !s.eat(',') {
			break
		}
	}
	if s.bad {
		return msgHead{}
	}
	h.response = result && !method
	return h
}

// headScanner is a tolerant JSON tokenizer over a prefix: running out of
// input is not an error (bad stays false), a syntax error is.
type headScanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *headScanner) ws() {
	for s.i < len(s.b) && isSpace(s.b[s.i]) {
		s.i++
	}
}

// eat consumes c if it is next; anything else (but the end) is a syntax
// error.
func (s *headScanner) eat(c byte) bool {
	switch {
	case s.i >= len(s.b):
		return false
	case s.b[s.i] != c:
		s.bad = true
		return false
	}
	s.i++
	return true
}

// str consumes a string and returns it with its quotes, escapes left as
// they are (member names of interest have none). ok is false at the end of
// input or on a syntax error.
func (s *headScanner) str() (raw []byte, ok bool) {
	start := s.i
	if !s.eat('"') {
		return nil, false
	}
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '\\':
			s.i += 2
		case c == '"':
			s.i++
			return s.b[start:s.i], true
		case c < 0x20:
			s.bad = true
			return nil, false
		default:
			s.i++
		}
	}
	return nil, false
}

// value consumes one value and reports whether it ended within the input.
// Nested objects and arrays are skipped by depth, strings by their quotes.
func (s *headScanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{' || c == '[':
		return s.nested()
	case c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z':
		// A number or a literal; it ends at a delimiter, which must be
		// in the input for the token to be whole.
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return true
			}
			s.i++
		}
		return false
	}
	s.bad = true
	return false
}

// nested skips an object or array, which starts at s.i.
func (s *headScanner) nested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.i++
		if depth == 0 {
			return true
		}
	}
	return false
}
