package acp

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// This file holds hand-written encoders for the shapes a turn streams by the
// thousand: text chunks, tool_call and tool_call_update. Each writes exactly
// the bytes encoding/json writes for the same value (compact, HTML-safe
// escaping, fields in struct order, the same omitempty/omitzero rules and
// the same error text), so the wire does not depend on which path encoded a
// value. Rare parts (_meta, annotations, rawInput/rawOutput, other
// variants) are still encoded by encoding/json and spliced in.
//
// The reflective path cost several json.Marshal calls per update, each of
// whose output encoding/json then re-validated once per nesting level.

// AppendJSON appends the JSON encoding of n to dst and returns the extended
// buffer. The bytes are exactly those json.Marshal(n) returns, and so are
// compact (no newline); on error the error is the one json.Marshal returns,
// and dst is returned unextended. The JSON-RPC connection uses it to encode
// session/update params without reflection.
func (n SessionNotification) AppendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"sessionId":`...)
	dst = appendString(dst, string(n.SessionID))
	dst = append(dst, `,"update":`...)
	dst, err := n.Update.appendJSON(dst)
	if err != nil {
		return dst[:start], marshalerError(typeSessionUpdate, err)
	}
	if dst, err = appendMeta(dst, n.Meta); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// The union types, for errors worded as encoding/json words them when a
// MarshalJSON method fails.
var (
	typeSessionUpdate   = reflect.TypeFor[SessionUpdate]()
	typeContentBlock    = reflect.TypeFor[ContentBlock]()
	typeToolCallContent = reflect.TypeFor[ToolCallContent]()
)

// marshalerError wraps err the way encoding/json wraps the error of a
// MarshalJSON method of type t, so that an error is worded the same whether
// the value went through encoding/json or through these encoders.
func marshalerError(t reflect.Type, err error) error {
	return &json.MarshalerError{Type: t, Err: err}
}

// appendJSON encodes the set variant of u; errors are returned as u's
// MarshalJSON returns them.
func (u *SessionUpdate) appendJSON(dst []byte) ([]byte, error) {
	tag, val, n := u.variant()
	if n != 1 {
		return dst, variantCountError("SessionUpdate", n)
	}
	switch v := val.(type) {
	case *ContentChunk:
		return v.appendJSON(dst, tag)
	case *ToolCall:
		return v.appendJSON(dst)
	case *ToolCallUpdate:
		return v.appendJSON(dst)
	}
	return appendTagged(dst, "sessionUpdate", tag, val)
}

// appendJSON encodes a message chunk as the session update variant tag.
func (c *ContentChunk) appendJSON(dst []byte, tag string) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"sessionUpdate":`...)
	dst = appendString(dst, tag)
	dst = append(dst, `,"content":`...)
	dst, err := c.Content.appendJSON(dst)
	if err != nil {
		return dst[:start], marshalerError(typeContentBlock, err)
	}
	if c.MessageID != nil {
		dst = append(dst, `,"messageId":`...)
		dst = appendString(dst, string(*c.MessageID))
	}
	if dst, err = appendMeta(dst, c.Meta); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// appendJSON encodes the set variant of c; errors are returned as c's
// MarshalJSON returns them.
func (c *ContentBlock) appendJSON(dst []byte) ([]byte, error) {
	if n := countSet(c.Text != nil, c.Image != nil, c.Audio != nil, c.ResourceLink != nil, c.Resource != nil); n != 1 {
		return dst, variantCountError("ContentBlock", n)
	}
	switch {
	case c.Text != nil:
		return c.Text.appendJSON(dst)
	case c.Image != nil:
		return appendTagged(dst, "type", "image", c.Image)
	case c.Audio != nil:
		return appendTagged(dst, "type", "audio", c.Audio)
	case c.ResourceLink != nil:
		return appendTagged(dst, "type", "resource_link", c.ResourceLink)
	default:
		return appendTagged(dst, "type", "resource", c.Resource)
	}
}

// appendJSON encodes a text block with its "type" member.
func (t *TextContent) appendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"type":"text"`...)
	var err error
	if t.Annotations != nil {
		dst = append(dst, `,"annotations":`...)
		if dst, err = appendMarshal(dst, t.Annotations); err != nil {
			return dst[:start], err
		}
	}
	dst = append(dst, `,"text":`...)
	dst = appendString(dst, t.Text)
	if dst, err = appendMeta(dst, t.Meta); err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// appendJSON encodes a tool_call session update.
func (tc *ToolCall) appendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"sessionUpdate":"tool_call","toolCallId":`...)
	dst = appendString(dst, string(tc.ToolCallID))
	dst = append(dst, `,"title":`...)
	dst = appendString(dst, tc.Title)
	if tc.Name != nil {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, *tc.Name)
	}
	if tc.Kind != "" {
		dst = append(dst, `,"kind":`...)
		dst = appendString(dst, string(tc.Kind))
	}
	if tc.Status != "" {
		dst = append(dst, `,"status":`...)
		dst = appendString(dst, string(tc.Status))
	}
	dst, err := appendToolCallTail(dst, toolCallTail{
		content: tc.Content, hasContent: len(tc.Content) > 0,
		locations: tc.Locations, hasLocations: len(tc.Locations) > 0,
		rawInput: tc.RawInput, rawOutput: tc.RawOutput, meta: tc.Meta,
	})
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// appendJSON encodes a tool_call_update session update.
func (u *ToolCallUpdate) appendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"sessionUpdate":"tool_call_update","toolCallId":`...)
	dst = appendString(dst, string(u.ToolCallID))
	if u.Kind != nil {
		dst = append(dst, `,"kind":`...)
		dst = appendString(dst, string(*u.Kind))
	}
	if u.Status != nil {
		dst = append(dst, `,"status":`...)
		dst = appendString(dst, string(*u.Status))
	}
	if u.Title != nil {
		dst = append(dst, `,"title":`...)
		dst = appendString(dst, *u.Title)
	}
	if u.Name != nil {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, *u.Name)
	}
	// Content and Locations are omitzero: only a nil slice is left out.
	dst, err := appendToolCallTail(dst, toolCallTail{
		content: u.Content, hasContent: u.Content != nil,
		locations: u.Locations, hasLocations: u.Locations != nil,
		rawInput: u.RawInput, rawOutput: u.RawOutput, meta: u.Meta,
	})
	if err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// toolCallTail is the part ToolCall and ToolCallUpdate share, from
// "content" to the closing brace; the has* fields apply each type's
// omission rule.
type toolCallTail struct {
	content      []ToolCallContent
	hasContent   bool
	locations    []ToolCallLocation
	hasLocations bool
	rawInput     any
	rawOutput    any
	meta         map[string]any
}

func appendToolCallTail(dst []byte, t toolCallTail) ([]byte, error) {
	var err error
	if t.hasContent {
		dst = append(dst, `,"content":[`...)
		for i := range t.content {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = t.content[i].appendJSON(dst); err != nil {
				return dst, marshalerError(typeToolCallContent, err)
			}
		}
		dst = append(dst, ']')
	}
	if t.hasLocations {
		dst = append(dst, `,"locations":[`...)
		for i := range t.locations {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = t.locations[i].appendJSON(dst); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	// Interface fields are omitempty: only a nil interface is left out (a
	// nil json.RawMessage inside one is written as null).
	if t.rawInput != nil {
		dst = append(dst, `,"rawInput":`...)
		if dst, err = appendMarshal(dst, t.rawInput); err != nil {
			return dst, err
		}
	}
	if t.rawOutput != nil {
		dst = append(dst, `,"rawOutput":`...)
		if dst, err = appendMarshal(dst, t.rawOutput); err != nil {
			return dst, err
		}
	}
	if dst, err = appendMeta(dst, t.meta); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendJSON encodes the set variant of c; errors are returned as c's
// MarshalJSON returns them.
func (c *ToolCallContent) appendJSON(dst []byte) ([]byte, error) {
	if n := countSet(c.Content != nil, c.Diff != nil, c.Terminal != nil); n != 1 {
		return dst, variantCountError("ToolCallContent", n)
	}
	start := len(dst)
	var err error
	switch {
	case c.Content != nil:
		dst = append(dst, `{"type":"content","content":`...)
		if dst, err = c.Content.appendJSON(dst); err != nil {
			return dst[:start], marshalerError(typeContentBlock, err)
		}
		if dst, err = appendMeta(dst, c.ContentMeta); err != nil {
			return dst[:start], err
		}
	case c.Diff != nil:
		dst = append(dst, `{"type":"diff","path":`...)
		dst = appendString(dst, c.Diff.Path)
		if c.Diff.OldText != nil {
			dst = append(dst, `,"oldText":`...)
			dst = appendString(dst, *c.Diff.OldText)
		}
		dst = append(dst, `,"newText":`...)
		dst = appendString(dst, c.Diff.NewText)
		if dst, err = appendMeta(dst, c.Diff.Meta); err != nil {
			return dst[:start], err
		}
	default:
		dst = append(dst, `{"type":"terminal","terminalId":`...)
		dst = appendString(dst, string(c.Terminal.TerminalID))
		if dst, err = appendMeta(dst, c.Terminal.Meta); err != nil {
			return dst[:start], err
		}
	}
	return append(dst, '}'), nil
}

func (l *ToolCallLocation) appendJSON(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"path":`...)
	dst = appendString(dst, l.Path)
	if l.Line != nil {
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendUint(dst, uint64(*l.Line), 10)
	}
	dst, err := appendMeta(dst, l.Meta)
	if err != nil {
		return dst[:start], err
	}
	return append(dst, '}'), nil
}

// appendTagged appends v, which must encode as a JSON object, with
// "key":"tag" inserted as its first member. It is how union variants get
// their discriminator without carrying it as a Go field: v is marshalled
// once and spliced, with nothing re-encoded.
func appendTagged(dst []byte, key, tag string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	if len(body) < 2 || body[0] != '{' {
		return dst, errNotObject(body)
	}
	dst = append(dst, '{')
	dst = appendString(dst, key)
	dst = append(dst, ':')
	dst = appendString(dst, tag)
	if len(body) > 2 { // not "{}": json.Marshal output is compact
		dst = append(dst, ',')
	}
	return append(dst, body[1:]...), nil
}

// appendMeta appends a "_meta" member unless m is empty (omitempty).
func appendMeta(dst []byte, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"_meta":`...)
	return appendMarshal(dst, m)
}

// appendMarshal appends json.Marshal(v): for a struct field of interface,
// map or pointer type encoding/json writes the same bytes.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendString appends s as a JSON string, escaped as encoding/json escapes
// strings by default: ", \ and control characters; <, > and & (HTML-safe);
// U+2028 and U+2029; each byte of invalid UTF-8 becomes U+FFFD.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	done := 0 // s[:done] has been appended
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[done:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[done:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[done:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		done = i
	}
	dst = append(dst, s[done:]...)
	return append(dst, '"')
}
