package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestSplit: the members a routing decision needs come out as the agent
// wrote them (compacted), whatever the member order and spacing, and
// strings holding braces, quotes or keys do not confuse the scan.
func TestSplit(t *testing.T) {
	raw := func(s string) []byte { return []byte(s) }
	tests := []struct {
		name string
		line string
		want members
	}{
		{"notification", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"x":"}{\"id\":1"}}}`,
			members{method: raw(`"session/update"`), params: raw(`{"sessionId":"s","update":{"x":"}{\"id\":1"}}`)}},
		{"spaced request, id last", `{ "method" : "fs/read_text_file", "params" : { "path" : "a b" , "n" : [1, 2] } , "id" : 7 }`,
			members{id: raw(`7`), method: raw(`"fs/read_text_file"`), params: raw(`{"path":"a b","n":[1,2]}`)}},
		{"response", `{"id":"x","jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`,
			members{id: raw(`"x"`), result: raw(`{"stopReason":"end_turn"}`)}},
		{"error", `{"id":3,"error":{"code":-32601,"message":"no","data":{"a":true}}}`,
			members{id: raw(`3`), err: &Error{Code: -32601, Message: "no", Data: json.RawMessage(`{"a":true}`)}}},
		{"null error and id", `{"id":null,"result":{},"error":null}`, members{result: raw(`{}`)}},
		{"escaped method", `{"method":"_x\/y","params":[]}`, members{method: raw(`"_x\/y"`), params: raw(`[]`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid([]byte(tt.line)) {
				t.Fatal("test line is not valid JSON")
			}
			got, ok := split([]byte(tt.line))
			if !ok {
				t.Fatal("split refused a valid message")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, ok := split([]byte(`[1,2]`)); ok {
		t.Error("split accepted a batch")
	}
}

// TestSplitRejects: what is not one JSON object, or not valid JSON, is
// refused, however close to valid it is.
func TestSplitRejects(t *testing.T) {
	for _, line := range []string{
		``, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{"a":1}{}`, `{,"a":1}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":nul}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{"b" 1}}`,
		`{"a":"unterminated}`, `{'a':1}`, `{"method":1}`, `{"error":"x"}`, `[]`, `"x"`, `null`,
	} {
		if _, ok := split([]byte(line)); ok {
			t.Errorf("split accepted %q", line)
		}
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, ok := split([]byte(`{"params":` + deep + `}`)); ok {
		t.Error("split accepted nesting deeper than encoding/json does")
	}
}

// FuzzSplit: split accepts exactly the JSON objects json.Valid accepts
// (whose method, if any, is a string and which carry no error member that
// is not an error object), and what it returns is compact, valid JSON.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"x":"}{\"id\":1"}}}`,
		`{ "method" : "fs/read_text_file", "params" : { "path" : "a b" , "n" : [1, 2.5e-3, -0, true, null] } , "id" : 7 }`,
		`{"id":3,"error":{"code":-32601,"message":"no","data":{"a":"\u00e9\n"}}}`,
		`{"a":1}x`, `[1]`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := split(line)
		valid := json.Valid(line)
		if ok && !valid {
			t.Fatalf("split accepted invalid JSON %q", line)
		}
		if !ok && valid {
			var members map[string]json.RawMessage
			if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '{' || json.Unmarshal(line, &members) != nil {
				return // not an object
			}
			var name string
			if raw, has := members["method"]; has && json.Unmarshal(raw, &name) != nil {
				return
			}
			if _, has := members["error"]; has {
				return
			}
			t.Fatalf("split refused the object %q", line)
		}
		for _, v := range [][]byte{m.id, m.method, m.params, m.result} {
			if len(v) == 0 {
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, v); err != nil || !bytes.Equal(buf.Bytes(), v) {
				t.Fatalf("split returned %q from %q: not compact, valid JSON", v, line)
			}
		}
	})
}
