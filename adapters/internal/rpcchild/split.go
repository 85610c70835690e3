package rpcchild

import (
	"bytes"
	"encoding/json"
)

// split reads the top-level members of one JSON-RPC message that json.Valid
// has accepted, without decoding the values: params and results pass
// through as the agent wrote them. A streaming turn is mostly
// session/update notifications, and decoding each one fully was half of
// the bridge's cost per update. The values are compacted when the agent
// wrote any whitespace between tokens, so what is forwarded is always
// compact, valid JSON.
func split(line []byte) (Message, bool) {
	var f Message
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return f, false
	}
	i++
	for {
		i = skipWS(line, i)
		if i < len(line) && line[i] == '}' {
			break
		}
		if i >= len(line) || line[i] != '"' {
			return f, false
		}
		kEnd := skipString(line, i)
		key := line[i+1 : kEnd-1]
		i = skipWS(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return f, false
		}
		i = skipWS(line, i+1)
		vEnd := skipValue(line, i)
		v := line[i:vEnd]
		switch string(key) {
		case "id":
			f.ID = v
		case "method":
			m, ok := method(v)
			if !ok {
				return f, false
			}
			f.Method = m
		case "params":
			f.Params = v
		case "result":
			f.Result = v
		case "error":
			if string(v) == "null" {
				break
			}
			f.Error = new(Error)
			if json.Unmarshal(v, f.Error) != nil {
				return f, false
			}
		}
		i = skipWS(line, vEnd)
		if i < len(line) && line[i] == ',' {
			i++
		}
	}
	f.Params, f.Result = compactJSON(f.Params), compactJSON(f.Result)
	if string(f.ID) == "null" {
		f.ID = nil
	}
	return f, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the (valid) value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[j])) {
		j++
	}
	return j
}

// method decodes a method name. The names a streaming child sends over and
// over come back as constants, so a forwarded update costs no allocation
// for its method.
func method(v []byte) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		switch string(v[1 : len(v)-1]) {
		case "session/update":
			return "session/update", true
		case "item/agentMessage/delta":
			return "item/agentMessage/delta", true
		case "item/reasoning/textDelta":
			return "item/reasoning/textDelta", true
		}
	}
	var m string
	if json.Unmarshal(v, &m) != nil {
		return "", false
	}
	return m, true
}

// compactJSON returns v without whitespace between tokens, copying only
// when there is some.
func compactJSON(v []byte) []byte {
	for j := 0; j < len(v); j++ {
		switch v[j] {
		case '"':
			j = skipString(v, j) - 1
		case ' ', '\t', '\r', '\n':
			var buf bytes.Buffer
			if json.Compact(&buf, v) != nil {
				return v
			}
			return buf.Bytes()
		}
	}
	return v
}
