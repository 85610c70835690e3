package jsonscan

// DefaultMaxDepth is the nesting bound of a Scanner whose MaxDepth is
// zero: encoding/json's, so that Valid with it agrees with json.Valid.
const DefaultMaxDepth = 10000

// Scanner is a validating reader of the JSON in B, at I. Each method reads
// one thing at I, after any whitespace, moves I past it and reports
// whether it was there and valid. After a false the Scanner is spent: I
// is somewhere inside what failed.
//
// Reading is recursive, so nesting is bounded: a line of millions of
// brackets is not JSON to the bridge, and costs no more than its length.
type Scanner struct {
	B []byte
	I int
	// MaxDepth bounds the objects and arrays open at once; zero means
	// DefaultMaxDepth.
	MaxDepth int
	// Spaced is set whenever whitespace is skipped; it is the caller's
	// to reset. A value read with Spaced clear and still clear after it
	// is compact as it stands.
	Spaced bool
	depth  int // objects and arrays open
}

// Valid reports whether b is one JSON value nested at most maxDepth deep
// (zero: DefaultMaxDepth), with nothing but whitespace around it.
func Valid(b []byte, maxDepth int) bool {
	s := Scanner{B: b, MaxDepth: maxDepth}
	if !s.Value() {
		return false
	}
	s.WS()
	return s.I == len(b)
}

// WS skips whitespace.
func (s *Scanner) WS() {
	i := s.I
	for i < len(s.B) && isSpace(s.B[i]) {
		i++
	}
	if i > s.I {
		s.Spaced = true
		s.I = i
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Value reads any value.
func (s *Scanner) Value() bool {
	s.WS()
	if s.I >= len(s.B) {
		return false
	}
	switch c := s.B[s.I]; {
	case c == '"':
		_, _, ok := s.String()
		return ok
	case c == '{':
		return s.Object(nil)
	case c == '[':
		return s.array()
	case c == '-' || c >= '0' && c <= '9':
		return s.Number()
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	}
	return false
}

// Object reads an object. It calls member with each key as String returns
// it, I just past the key's colon; member must read the value (Value, or
// what it expects there) and return whether it may go on. A nil member
// reads each value with Value.
func (s *Scanner) Object(member func(key []byte, escaped bool) bool) bool {
	if !s.open('{') {
		return false
	}
	ok := s.members(member)
	s.depth--
	return ok
}

func (s *Scanner) members(member func(key []byte, escaped bool) bool) bool {
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == '}' {
		s.I++
		return true
	}
	for {
		key, esc, ok := s.String()
		if !ok {
			return false
		}
		s.WS()
		if s.I >= len(s.B) || s.B[s.I] != ':' {
			return false
		}
		s.I++
		if member == nil {
			ok = s.Value()
		} else {
			ok = member(key, esc)
		}
		if !ok {
			return false
		}
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

func (s *Scanner) array() bool {
	if !s.open('[') {
		return false
	}
	ok := s.items()
	s.depth--
	return ok
}

func (s *Scanner) items() bool {
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == ']' {
		s.I++
		return true
	}
	for {
		if !s.Value() {
			return false
		}
		if more, ok := s.next(']'); !more {
			return ok
		}
	}
}

// open reads begin, within the nesting bound.
func (s *Scanner) open(begin byte) bool {
	s.WS()
	limit := s.MaxDepth
	if limit == 0 {
		limit = DefaultMaxDepth
	}
	if s.I >= len(s.B) || s.B[s.I] != begin || s.depth >= limit {
		return false
	}
	s.depth++
	s.I++
	return true
}

// next reads what follows an item: a comma (more) or the end of the list
// (ok).
func (s *Scanner) next(end byte) (more, ok bool) {
	s.WS()
	if s.I >= len(s.B) {
		return false, false
	}
	switch s.B[s.I] {
	case ',':
		s.I++
		return true, true
	case end:
		s.I++
		return false, true
	}
	return false, false
}

// String reads a string and returns its contents as they are in the JSON
// (escaped says whether they hold escapes), aliasing B with no spare
// capacity.
func (s *Scanner) String() (v []byte, escaped, ok bool) {
	s.WS()
	b := s.B
	if s.I >= len(b) || b[s.I] != '"' {
		return nil, false, false
	}
	start := s.I + 1
	for j := plain(b, start); j < len(b); j = plain(b, j+1) {
		switch c := b[j]; {
		case c == '"':
			s.I = j + 1
			return b[start:j:j], escaped, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			j++
			if j >= len(b) {
				return nil, false, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return nil, false, false
				}
				j += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// StringIs reads a string and reports whether it is want, written without
// escapes.
func (s *Scanner) StringIs(want string) bool {
	v, esc, ok := s.String()
	return ok && !esc && string(v) == want
}

// Number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) Number() bool {
	s.WS()
	b, i := s.B, s.I
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
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
			return false
		}
		i = j
	}
	s.I = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Literal reads lit (true, false or null).
func (s *Scanner) Literal(lit string) bool {
	s.WS()
	if len(s.B)-s.I < len(lit) || string(s.B[s.I:s.I+len(lit)]) != lit {
		return false
	}
	s.I += len(lit)
	return true
}
