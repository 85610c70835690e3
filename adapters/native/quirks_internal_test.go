package native

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// discard is an editor that drops every notification.
type discard struct{ acp.RawClient }

func (discard) NotifyRaw(context.Context, string, json.RawMessage) error { return nil }
func (discard) Capabilities() acp.ClientCapabilities                     { return acp.ClientCapabilities{} }

// BenchmarkQuirkClientChunk is the quirk layer's own cost for the update
// that dominates a turn, a text chunk, against the same call straight to
// the editor: the difference is what the fixes add to each update.
func BenchmarkQuirkClientChunk(b *testing.B) {
	params := json.RawMessage(`{"sessionId":"ses_df5555336ffeXJtcD5V5LKHXK3","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg_20aaab25c001INHsVb6wgpdxP1","content":{"type":"text","text":"The command printed the marker."}}}`)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		var c acp.RawClient = discard{}
		for b.Loop() {
			c.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
		}
	})
	b.Run("quirks", func(b *testing.B) {
		var c acp.RawClient = newQuirkClient(discard{})
		for b.Loop() {
			c.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
		}
	})
}

// TestUpdateKind: the discriminator is found by bytes alone, past other
// members that contain "Update" and text that quotes the key.
func TestUpdateKind(t *testing.T) {
	for _, tt := range []struct {
		params, want string
	}{
		{`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`, "agent_message_chunk"},
		{`{"sessionId":"sUpdate\":\"x","update":{"lastUpdate":"y","sessionUpdate":"tool_call","toolCallId":"t"}}`, "tool_call"},
		{`{"update":{"content":{"type":"text","text":"\"sessionUpdate\":\"fake\""},"sessionUpdate":"agent_thought_chunk"},"sessionId":"s"}`, "agent_thought_chunk"},
		{`{"sessionId":"s","update":{}}`, ""},
		{`{"sessionId":"a\",\"update\":{\"sessionUpdate\":\"x","update":{"sessionUpdate":"plan"}}`, "plan"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1}}`, "usage_update"},
		{`{"sessionId":"s","update":{"sessionUpdate":"cut`, ""},
	} {
		if got := string(updateKind([]byte(tt.params))); got != tt.want {
			t.Errorf("updateKind(%s) = %q, want %q", tt.params, got, tt.want)
		}
	}
}

// BenchmarkQuirkClientCommands is the cost of telling a repeated
// available_commands_update, on Qwen Code's list of 51 commands (from its
// recording): "repeat" is the same bytes again, as Qwen sends them,
// "reordered" the same list in another key order, which is decoded.
func BenchmarkQuirkClientCommands(b *testing.B) {
	rec, err := os.ReadFile("../../fixtures/qwen/text.txtar")
	if err != nil {
		b.Fatal(err)
	}
	var params json.RawMessage
	for line := range strings.Lines(string(rec)) {
		if strings.HasPrefix(line, "> ") && strings.Contains(line, `"available_commands_update"`) {
			var m struct {
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(line[2:]), &m); err != nil {
				b.Fatal(err)
			}
			params = m.Params
		}
	}
	if params == nil {
		b.Fatal("no available_commands_update in the recording")
	}
	var v any
	json.Unmarshal(params, &v)
	reordered, _ := json.Marshal(v) // keys sorted: another order than Qwen's
	ctx := context.Background()
	for _, bb := range []struct {
		name string
		next json.RawMessage
	}{{"repeat", params}, {"reordered", reordered}} {
		b.Run(bb.name, func(b *testing.B) {
			c := newQuirkClient(discard{})
			c.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
			b.SetBytes(int64(len(bb.next)))
			for b.Loop() {
				c.NotifyRaw(ctx, acp.MethodSessionUpdate, bb.next)
			}
		})
	}
}
