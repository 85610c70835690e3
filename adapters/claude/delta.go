package claude

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/internal/jsonscan"
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
// events, a member it reads given twice, a key of the objects it reads or
// an id with escapes, a parent that is neither a string nor null, nesting
// deeper than maxDepth) it reports !ok and the line takes the general
// path, which is the reference (FuzzScanDelta holds the two equal).
func scanDelta(line []byte) streamDelta {
	s := jsonscan.Scanner{B: line, MaxDepth: maxDepth}
	var d streamDelta
	var seen, evSeen, dSeen uint8
	var typeOK, evTypeOK, dTypeOK, hasText bool
	ok := s.Object(func(key []byte, esc bool) bool {
		if esc {
			return false
		}
		switch string(key) {
		case "type":
			typeOK = s.StringIs("stream_event")
			return once(&seen, 1) && typeOK
		case "event":
			return once(&seen, 2) && s.Object(func(key []byte, esc bool) bool {
				if esc {
					return false
				}
				switch string(key) {
				case "type":
					evTypeOK = s.StringIs("content_block_delta")
					return once(&evSeen, 1) && evTypeOK
				case "delta":
					return once(&evSeen, 2) && s.Object(func(key []byte, esc bool) bool {
						if esc {
							return false
						}
						switch string(key) {
						case "type":
							switch v, _, ok := s.String(); {
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
							v, esc, ok := s.String()
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
						return s.Value()
					})
				}
				return s.Value()
			})
		case "parent_tool_use_id":
			if !once(&seen, 4) {
				return false
			}
			if s.Literal("null") {
				return true
			}
			v, esc, ok := s.String()
			d.parent = v
			return ok && !esc // escapes: the general path unescapes
		case "api_message_id":
			if !once(&seen, 8) {
				return false
			}
			v, esc, ok := s.String()
			d.apiID = v
			return ok && !esc
		}
		return s.Value()
	})
	s.WS()
	wantField := uint8(8)
	if d.thought {
		wantField = 4
	}
	if !ok || s.I != len(line) || !typeOK || !evTypeOK || !dTypeOK || !hasText || dSeen&12 != wantField {
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

// maxDepth bounds the nesting of the lines the bridge reads (see
// jsonscan.Scanner): gjson.Valid's recursion dies of a line of millions of
// brackets, and no recovery is possible from that.
const maxDepth = 1000

// validJSON reports whether b is one JSON value, nested at most maxDepth
// deep. Below that depth it agrees with gjson.Valid.
func validJSON(b []byte) bool { return jsonscan.Valid(b, maxDepth) }

// appendUnescaped appends the JSON string contents src (valid, as
// jsonscan.Scanner.String returns them) unescaped, as gjson does: a surrogate escape takes the
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
