package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// FuzzRequest sends an initialized connection one request with arbitrary
// method and params: the bridge must not panic, must answer with exactly one
// response carrying the request's id, and must keep serving.
func FuzzRequest(f *testing.F) {
	for _, m := range []string{"initialize", "session/new", "session/load", "session/prompt", "session/set_mode",
		"session/set_config_option", "session/set_model", "session/close", "session/list", "authenticate", "_x"} {
		f.Add(m, `{}`)
		f.Add(m, `{"sessionId":"s1","cwd":"/tmp","mcpServers":[],"prompt":[{"type":"text","text":"hi"}]}`)
	}
	f.Add("session/prompt", `{"sessionId":"s1","prompt":[{"type":"resource","resource":{"uri":"file:///a","blob":"AA=="}}]}`)
	f.Add("session/set_config_option", `{"sessionId":"s1","configId":"model","type":"boolean","value":true}`)
	f.Add("session/new", `{"cwd":"/tmp","mcpServers":[{"type":"http","name":"x","url":"http://h","headers":[]}]}`)
	f.Fuzz(func(t *testing.T, method, params string) {
		if !json.Valid([]byte(params)) {
			params = `"` + params + `"`
			if !json.Valid([]byte(params)) {
				return
			}
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		a := &scriptAdapter{turn: func(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
			return acp.StopReasonEndTurn, nil
		}}
		srv := bridge.New(a, bridge.Options{})
		done := make(chan error, 1)
		go func() { done <- srv.ServeStdio(context.Background(), inR, outW); outW.Close() }()
		r := bufio.NewReader(outR)
		write := func(s string) { io.WriteString(inW, s+"\n") }
		// Read until the answer to id, skipping notifications.
		answer := func(id float64) map[string]any {
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					t.Fatalf("bridge output ended: %v", err)
				}
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("non-JSON output %q", line)
				}
				if m["method"] == nil && m["id"] == id {
					return m
				}
			}
		}
		write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
		answer(1)
		write(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
		answer(2)
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": method, "params": json.RawMessage(params)})
		write(string(req))
		if m := answer(3); (m["result"] == nil) == (m["error"] == nil) {
			t.Fatalf("answer has both or neither of result and error: %v", m)
		}
		write(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}`)
		answer(4)
		inW.Close()
		go io.Copy(io.Discard, r)
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
	})
}
