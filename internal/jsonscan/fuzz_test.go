package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzScan holds both readers to encoding/json: Valid accepts what
// json.Valid accepts; on a valid object, Object reads each member's key
// and value where json finds them, Lax.Member finds the same value and
// Lax.Skip ends it where Scanner.Value does; and skimming any cut of a
// valid object meets no syntax error.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}`,
		`{ "a" : [1, -0.5e+7, true, false, null, {"b":"\u00e9\n\"\\"}] , "\u0061":"x", "c":{} }`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a\"b\ud83d\ude00"}}}`,
		`[1,2]`, `"s"`, `{"a":01}`, `{"a":1,}`, `{"a":"` + "\x01" + `"}`, strings.Repeat("[", 40) + strings.Repeat("]", 40),
	} {
		f.Add([]byte(s), len(s)/2)
	}
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		if got, want := Valid(b, 0), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		var m map[string]json.RawMessage
		if !json.Valid(b) || json.Unmarshal(b, &m) != nil {
			return
		}
		checkMembers(t, b, m)
		cut = min(max(cut, 0), len(b))
		s := Lax{B: b[:cut]}
		if s.WS(); !s.Eat('{') {
			return
		}
		for {
			if s.WS(); s.I < cut && b[s.I] == '}' {
				break
			}
			if _, ok := s.String(); !ok {
				break
			}
			if s.WS(); !s.Eat(':') {
				break
			}
			if s.WS(); !s.Skip() {
				break
			}
			if s.WS(); s.I < cut && b[s.I] == '}' || !s.Eat(',') {
				break
			}
		}
		if s.Bad {
			t.Fatalf("Lax found a syntax error in %q, cut from %q", b[:cut], b)
		}
	})
}

// checkMembers reads the members of the valid object b with Object and
// holds them to m, json's reading of b.
func checkMembers(t *testing.T, b []byte, m map[string]json.RawMessage) {
	t.Helper()
	s := Scanner{B: b}
	seen := map[string]bool{}
	ok := s.Object(func(key []byte, escaped bool) bool {
		var name string
		if json.Unmarshal([]byte(`"`+string(key)+`"`), &name) != nil || escaped != strings.Contains(string(key), `\`) {
			t.Fatalf("%q: key %q (escaped %v) is not the contents of a string", b, key, escaped)
		}
		s.WS()
		start := s.I
		if !s.Value() {
			return false
		}
		v := b[start:s.I]
		if !json.Valid(v) {
			t.Fatalf("%q: member %q read as %q, not JSON", b, name, v)
		}
		lax := Lax{B: b, I: start}
		if !lax.Skip() || lax.I != s.I {
			t.Fatalf("%q: Lax skips member %q's value %q to %d, Scanner to %d", b, name, v, lax.I, s.I)
		}
		if !escaped && !seen[name] {
			// The first member of the name; json keeps the last.
			seen[name] = true
			lax := Lax{B: b}
			if !lax.Member(name) || lax.I != start {
				t.Fatalf("%q: Lax.Member(%q) is at %d, the member at %d", b, name, lax.I, start)
			}
		}
		if _, has := m[name]; !has {
			t.Fatalf("%q: member %q that json does not see", b, name)
		}
		return true
	})
	if s.WS(); !ok || s.I != len(b) {
		t.Fatalf("Object refused %q, a JSON object", b)
	}
}
