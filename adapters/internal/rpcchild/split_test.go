package rpcchild

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSplit: the members a routing decision needs come out as the agent
// wrote them (compacted), whatever the member order and spacing, and
// strings holding braces, quotes or keys do not confuse the scan.
func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Message
	}{
		{"notification", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"x":"}{\"id\":1"}}}`,
			Message{Method: "session/update", Params: json.RawMessage(`{"sessionId":"s","update":{"x":"}{\"id\":1"}}`)}},
		{"spaced request, id last", `{ "method" : "fs/read_text_file", "params" : { "path" : "a b" , "n" : [1, 2] } , "id" : 7 }`,
			Message{ID: json.RawMessage(`7`), Method: "fs/read_text_file", Params: json.RawMessage(`{"path":"a b","n":[1,2]}`)}},
		{"response", `{"id":"x","jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`,
			Message{ID: json.RawMessage(`"x"`), Result: json.RawMessage(`{"stopReason":"end_turn"}`)}},
		{"error", `{"id":3,"error":{"code":-32601,"message":"no","data":{"a":true}}}`,
			Message{ID: json.RawMessage(`3`), Error: &Error{Code: -32601, Message: "no", Data: json.RawMessage(`{"a":true}`)}}},
		{"null error", `{"id":1,"result":{},"error":null}`, Message{ID: json.RawMessage(`1`), Result: json.RawMessage(`{}`)}},
		{"escaped method", `{"method":"_x\/y","params":[]}`, Message{Method: "_x/y", Params: json.RawMessage(`[]`)}},
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
