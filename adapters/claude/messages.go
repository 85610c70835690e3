package claude

import (
	"bytes"
	"encoding/json"
)

// renames reports whether the dialect names any discriminator differently
// from Claude Code.
func (m Messages) renames() bool {
	return (m.TypeField != "" && m.TypeField != "type") || (m.SubtypeField != "" && m.SubtypeField != "subtype") ||
		len(m.Types) > 0 || len(m.Subtypes) > 0
}

// inbound rewrites a line from the CLI into Claude Code's names; outbound
// rewrites one of the engine's lines into the CLI's. Both return the line
// as it is when it is not a JSON object. Only dialects that rename
// anything pay for the decoding (see renames).
func (m Messages) inbound(line []byte) []byte  { return m.rewrite(line, true) }
func (m Messages) outbound(line []byte) []byte { return m.rewrite(line, false) }

func (m Messages) rewrite(line []byte, in bool) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return line
	}
	typeField, subField := orDefault(m.TypeField, "type"), orDefault(m.SubtypeField, "subtype")
	types, subs := m.Types, m.Subtypes
	from, to := typeField, "type"
	fromSub, toSub := subField, "subtype"
	if !in {
		from, to, fromSub, toSub = to, from, toSub, fromSub
		types, subs = invert(types), invert(subs)
	}
	renameMember(obj, from, to, types)
	renameMember(obj, fromSub, toSub, subs)
	for _, k := range []string{"request", "response"} {
		var inner map[string]json.RawMessage
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &inner) == nil && inner != nil {
			renameMember(inner, fromSub, toSub, subs)
			if b, err := json.Marshal(inner); err == nil {
				obj[k] = b
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return line
	}
	return bytes.TrimSpace(out)
}

// renameMember moves obj[from] to obj[to], mapping its value through
// values when it is a string that values names.
func renameMember(obj map[string]json.RawMessage, from, to string, values map[string]string) {
	raw, ok := obj[from]
	if !ok {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if v, ok := values[s]; ok {
			raw, _ = json.Marshal(v)
		}
	}
	delete(obj, from)
	obj[to] = raw
}

func invert(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}
