package jsonscan

// Lax skims the JSON in B, at I: it finds its way through objects and
// skips values by their brackets and quotes, without validating them.
// Running out of input is not an error (the methods return false with Bad
// clear), so it reads the head of a message cut anywhere; what is not JSON
// where it looks sets Bad. Inside a skipped value only strings are looked
// at, so garbage there goes unnoticed: use it on input known to be valid,
// or where a wrong guess costs nothing worse than a missed member.
type Lax struct {
	B   []byte
	I   int
	Bad bool // a syntax error was met
}

// WS skips whitespace.
func (s *Lax) WS() {
	for s.I < len(s.B) && isSpace(s.B[s.I]) {
		s.I++
	}
}

// Eat consumes c if it is next; anything else (but the end) is a syntax
// error.
func (s *Lax) Eat(c byte) bool {
	switch {
	case s.I >= len(s.B):
		return false
	case s.B[s.I] != c:
		s.Bad = true
		return false
	}
	s.I++
	return true
}

// String consumes a string and returns it with its quotes, escapes left as
// they are. ok is false at the end of input or on a syntax error.
func (s *Lax) String() (raw []byte, ok bool) {
	start := s.I
	if !s.Eat('"') {
		return nil, false
	}
	for s.I = plain(s.B, s.I); s.I < len(s.B); s.I = plain(s.B, s.I) {
		switch c := s.B[s.I]; {
		case c == '\\':
			s.I += 2
		case c == '"':
			s.I++
			return s.B[start:s.I], true
		default: // a control character
			s.Bad = true
			return nil, false
		}
	}
	return nil, false
}

// Skip consumes one value and reports whether it ended within the input.
// Nested objects and arrays are skipped by depth, strings by their quotes,
// numbers and literals up to the delimiter after them, which must be in
// the input for the token to be whole.
func (s *Lax) Skip() bool {
	if s.I >= len(s.B) {
		return false
	}
	switch c := s.B[s.I]; {
	case c == '"':
		_, ok := s.String()
		return ok
	case c == '{' || c == '[':
		return s.nested()
	case c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z':
		for s.I < len(s.B) {
			switch s.B[s.I] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return true
			}
			s.I++
		}
		return false
	}
	s.Bad = true
	return false
}

// nested skips an object or array, which starts at I.
func (s *Lax) nested() bool {
	depth := 0
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case '"':
			if _, ok := s.String(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.I++
		if depth == 0 {
			return true
		}
	}
	return false
}

// Member moves I to the value of the member name of the object at I,
// skipping the members before it, and reports whether it found one. A key
// is compared as written: one with escapes never matches.
func (s *Lax) Member(name string) bool {
	if s.WS(); !s.Eat('{') {
		return false
	}
	for {
		s.WS()
		key, ok := s.String()
		if s.WS(); !ok || !s.Eat(':') {
			return false
		}
		s.WS()
		if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
			return true
		}
		if !s.Skip() {
			return false
		}
		if s.WS(); !s.Eat(',') {
			return false
		}
	}
}

// StringValue reads the string at I and returns its contents as written
// (escapes and all), or nil when there is none.
func (s *Lax) StringValue() []byte {
	if s.I >= len(s.B) || s.B[s.I] != '"' {
		return nil
	}
	raw, ok := s.String()
	if !ok {
		return nil
	}
	return raw[1 : len(raw)-1]
}
