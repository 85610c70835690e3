package jsonrpc

import "github.com/acpbridge/acpbridge/internal/jsonscan"

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
// params does not count. Anything that is not JSON where the skim looks,
// before the end of b, makes the id unknown: a reply must not name an id
// read from garbage.
func scanHead(b []byte) msgHead {
	s := jsonscan.Lax{B: b}
	var h msgHead
	var method, result bool
	if s.WS(); !s.Eat('{') {
		return msgHead{}
	}
	for {
		s.WS()
		if s.I < len(s.B) && s.B[s.I] == '}' {
			break
		}
		key, ok := s.String()
		if s.WS(); !ok || !s.Eat(':') {
			break
		}
		s.WS()
		start := s.I
		done := s.Skip()
		switch string(key) {
		case `"id"`:
			var id ID
			if !done || id.UnmarshalJSON(s.B[start:s.I]) != nil {
				h.id = ID{}
				return h
			}
			h.id = id
		case `"method"`:
			method = true
		case `"result"`, `"error"`:
			result = true
		}
		s.WS()
		if !done || s.I >= len(s.B) || s.B[s.I] == '}' || !s.Eat(',') {
			break
		}
	}
	if s.Bad {
		return msgHead{}
	}
	h.response = result && !method
	return h
}
