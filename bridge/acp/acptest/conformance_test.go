package acptest_test

import (
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestChecker proves the checker catches what it exists to catch: a test
// that validated nothing would pass every bridge bug.
func TestChecker(t *testing.T) {
	v := acptest.Load(t)
	tests := []struct {
		name    string
		client  string // a request the client sent first, if any
		agent   string
		wantErr string // "" means valid
	}{
		{"valid update", "", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, ""},
		{"unknown update kind", "", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"telepathy"}}}`, "SessionNotification"},
		{"update with an empty session id", "", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, "empty sessionId"},
		{"update without session", "", `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, "SessionNotification"},
		{"valid prompt answer", `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{}}`, `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`, ""},
		{"invalid stop reason", `{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{}}`, `{"jsonrpc":"2.0","id":8,"result":{"stopReason":"tired"}}`, "PromptResponse"},
		{"answer to nothing", "", `{"jsonrpc":"2.0","id":9,"result":{}}`, "no client request carried"},
		{"error object", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, ""},
		{"error without message", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`, "Error"},
		{"not a client method", "", `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`, "not a client method"},
		{"missing jsonrpc", "", `{"id":3,"result":{}}`, `"jsonrpc":"2.0"`},
		{"permission request", "", `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`, ""},
		{"extension notification", "", `{"jsonrpc":"2.0","method":"_x/notice","params":{"sessionId":"s","_meta":{"k":1}}}`, ""},
		{"extension request with array params", "", `{"jsonrpc":"2.0","id":4,"method":"_x/ask","params":[1]}`, "must be an object"},
		{"extension method answer", `{"jsonrpc":"2.0","id":5,"method":"_x/echo","params":{}}`, `{"jsonrpc":"2.0","id":5,"result":{"any":"thing"}}`, ""},
		{"permission with a bad kind", "", `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"a","name":"Allow","kind":"maybe"}]}}`, "RequestPermissionRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := v.NewChecker()
			if tt.client != "" {
				c.ClientFrame([]byte(tt.client))
			}
			err := c.AgentFrame([]byte(tt.agent))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("valid frame rejected: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("invalid frame accepted")
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not mention %q", err, tt.wantErr)
			}
		})
	}
}
