package jsonrpc

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestID(t *testing.T) {
	tests := []struct {
		name   string
		json   string
		want   ID
		str    string
		errors bool
	}{
		{"number", "42", Int64ID(42), "42", false},
		{"negative", "-7", Int64ID(-7), "-7", false},
		{"string", `"abc"`, StringID("abc"), `"abc"`, false},
		{"numeric string", `"1"`, StringID("1"), `"1"`, false},
		{"null", "null", ID{}, "null", false},
		{"fraction", "1.5", ID{}, "", true},
		{"exponent", "1e3", ID{}, "", true},
		{"too big", "9223372036854775808", ID{}, "", true},
		{"bool", "true", ID{}, "", true},
		{"object", "{}", ID{}, "", true},
		{"plus", "+1", ID{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var id ID
			err := id.UnmarshalJSON([]byte(tt.json))
			if (err != nil) != tt.errors {
				t.Fatalf("UnmarshalJSON(%s) error = %v", tt.json, err)
			}
			if tt.errors {
				return
			}
			if id != tt.want || id.String() != tt.str || id.IsValid() != (tt.json != "null") {
				t.Errorf("got %#v (%s), want %#v (%s)", id, id, tt.want, tt.str)
			}
			out, _ := json.Marshal(id)
			if string(out) != tt.json {
				t.Errorf("MarshalJSON = %s, want %s", out, tt.json)
			}
		})
	}
	// Usable as a map key, with 1 and "1" distinct.
	m := map[ID]int{Int64ID(1): 1, StringID("1"): 2}
	if len(m) != 2 || m[Int64ID(1)] != 1 {
		t.Errorf("map keys collide: %v", m)
	}
}

func TestEncodeMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"call", &Request{ID: Int64ID(1), Method: "session/new", Params: json.RawMessage("{\n  \"cwd\": \"/\"\n}")},
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}}`},
		{"notification", &Request{Method: "session/update", Params: json.RawMessage(`[1, 2]`)},
			`{"jsonrpc":"2.0","method":"session/update","params":[1,2]}`},
		{"no params", &Request{ID: StringID("x"), Method: "m"}, `{"jsonrpc":"2.0","id":"x","method":"m"}`},
		{"result", &Response{ID: Int64ID(2), Result: json.RawMessage(" {\"a\":\n1} ")}, `{"jsonrpc":"2.0","id":2,"result":{"a":1}}`},
		{"nil result", &Response{ID: Int64ID(3)}, `{"jsonrpc":"2.0","id":3,"result":null}`},
		{"error", &Response{ID: StringID("e"), Error: &Error{Code: -32602, Message: "Invalid params", Data: json.RawMessage("{\"f\":\n\"cwd\"}")}},
			`{"jsonrpc":"2.0","id":"e","error":{"code":-32602,"message":"Invalid params","data":{"f":"cwd"}}}`},
		{"null id error", &Response{Error: &Error{Code: -32700, Message: "Parse error"}},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"html stays valid", &Request{Method: "<&>", Params: json.RawMessage(`{"s":"<b>"}`)},
			`{"jsonrpc":"2.0","method":"\u003c\u0026\u003e","params":{"s":"<b>"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeMessage(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			back, err := DecodeMessage(got)
			if err != nil || !reflect.DeepEqual(normalize(back), normalize(tt.msg)) {
				t.Errorf("round trip: %#v, %v", back, err)
			}
		})
	}
	if _, err := EncodeMessage(&Request{Method: "m", Params: json.RawMessage("{")}); err == nil {
		t.Error("invalid raw params encoded")
	}
}

// normalize re-encodes the raw parts of m compactly, for comparison.
func normalize(m Message) Message {
	compact := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 {
			return nil
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		out, _ := json.Marshal(v)
		return out
	}
	switch m := m.(type) {
	case *Request:
		return &Request{ID: m.ID, Method: m.Method, Params: compact(m.Params)}
	case *Response:
		r := &Response{ID: m.ID, Result: compact(m.Result)}
		if r.Result == nil && m.Error == nil {
			r.Result = json.RawMessage("null")
		}
		if m.Error != nil {
			r.Error = &Error{Code: m.Error.Code, Message: m.Error.Message, Data: compact(m.Error.Data)}
		}
		return r
	}
	return m
}

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     Message
		wantErr  error
		wantID   ID
		response bool
	}{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, &Request{ID: Int64ID(1), Method: "m", Params: json.RawMessage(`{"a":1}`)}, nil, ID{}, false},
		{"notification null params", `{"jsonrpc":"2.0","method":"m","params":null}`, &Request{Method: "m"}, nil, ID{}, false},
		{"result", `{"jsonrpc":"2.0","id":"a","result":[1]}`, &Response{ID: StringID("a"), Result: json.RawMessage(`[1]`)}, nil, ID{}, false},
		{"result with error null", `{"jsonrpc":"2.0","id":1,"result":1,"error":null}`, &Response{ID: Int64ID(1), Result: json.RawMessage(`1`)}, nil, ID{}, false},
		{"error null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, &Response{Error: &Error{Code: -32700, Message: "x"}}, nil, ID{}, false},
		{"unknown members ignored", `{"jsonrpc":"2.0","method":"m","extra":1}`, &Request{Method: "m"}, nil, ID{}, false},
		{"not json", `{"jsonrpc"`, nil, ErrParse, ID{}, false},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"m"} x`, nil, ErrParse, ID{}, false},
		{"batch", `[{"jsonrpc":"2.0","method":"m"}]`, nil, ErrInvalidRequest, ID{}, false},
		{"case matters", `{"JSONRPC":"2.0","ID":1,"Method":"m"}`, nil, ErrInvalidRequest, ID{}, false},
		{"null request id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, nil, ErrInvalidRequest, ID{}, false},
		{"empty method", `{"jsonrpc":"2.0","id":4,"method":""}`, nil, ErrInvalidRequest, Int64ID(4), false},
		{"request with result", `{"jsonrpc":"2.0","id":4,"method":"m","result":1}`, nil, ErrInvalidRequest, Int64ID(4), false},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, nil, ErrInvalidRequest, ID{}, true},
		{"response with both", `{"jsonrpc":"2.0","id":5,"result":1,"error":{"code":1,"message":"m"}}`, nil, ErrInvalidRequest, Int64ID(5), true},
		{"bad error object", `{"jsonrpc":"2.0","id":5,"error":{"code":"x"}}`, nil, ErrInvalidRequest, Int64ID(5), true},
		{"response wrong version", `{"jsonrpc":"2","id":5,"result":1}`, nil, ErrInvalidRequest, Int64ID(5), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeMessage([]byte(tt.in))
			if tt.wantErr == nil {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
				}
				return
			}
			var de *DecodeError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &de) || de.ID != tt.wantID || de.response != tt.response {
				t.Fatalf("got %#v, %v; want error %v with id %v (response %v)", got, err, tt.wantErr, tt.wantID, tt.response)
			}
			if errors.Is(err, ErrParse) == errors.Is(err, ErrInvalidRequest) {
				t.Errorf("error %v wraps both or neither sentinel", err)
			}
		})
	}
}

// TestAppendNotification checks Notify's encoder against what it replaced:
// the params marshalled by encoding/json (nil and null meaning absent), then
// encoded by EncodeMessage.
func TestAppendNotification(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params any
	}{
		{"nil", "m", nil},
		{"null", "m", json.RawMessage("null")},
		{"nil pointer", "m", (*int)(nil)},
		{"nil appender", "m", (*fixedParams)(nil)},
		{"raw with whitespace", "session/update", json.RawMessage("{\n  \"a\": [1, \"<b>\"]\n}")},
		{"map", "session/update", map[string]any{"z": 1, "a": "x\u2028"}},
		{"appender", "session/update", chunkParams},
		{"array", "m", []int{1, 2}},
		{"escaped method", "<\"m\"\n\u00e9>", map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) == "null" {
				raw = nil
			}
			want, err := EncodeMessage(&Request{Method: tt.method, Params: raw})
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendNotification([]byte("x"), opening, tt.method, tt.params)
			if err != nil || string(got) != "x"+string(want) {
				t.Errorf("appendNotification = %s, %v\nwant x%s", got, err, want)
			}
		})
	}
	if _, err := appendNotification(nil, opening, "m", json.RawMessage("{")); err == nil {
		t.Error("invalid raw params encoded")
	}
	if _, err := appendNotification(nil, opening, "m", func() {}); err == nil {
		t.Error("a func encoded")
	}
}
