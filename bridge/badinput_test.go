package bridge_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestBadInput sends each malformed or wrong message to one initialized
// connection, expects the exact error, and checks after each that the
// connection still serves a request.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		send string
		want string // the whole answer frame; "" means no answer at all
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":105,"method":`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of JSON input"}}`},
		{"plain garbage", `hello`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'h' looking for beginning of value"}}`},
		{"batch array", `[{"jsonrpc":"2.0","id":101,"method":"session/list"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: batch requests are not supported"}}`},
		{"not an object", `42`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: message is not an object"}}`},
		{"wrong version", `{"jsonrpc":"1.0","id":109,"method":"session/list","params":{}}`,
			`{"jsonrpc":"2.0","id":109,"error":{"code":-32600,"message":"Invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{"neither request nor response", `{"jsonrpc":"2.0","id":110}`,
			`{"jsonrpc":"2.0","id":110,"error":{"code":-32600,"message":"Invalid request: message has neither \"method\", \"result\" nor \"error\""}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":111,"method":"session/fly","params":{}}`,
			`{"jsonrpc":"2.0","id":111,"error":{"code":-32601,"message":"Method not found","data":{"method":"session/fly"}}}`},
		{"unknown extension request", `{"jsonrpc":"2.0","id":112,"method":"_zed/hello","params":{}}`,
			`{"jsonrpc":"2.0","id":112,"error":{"code":-32601,"message":"Method not found","data":{"method":"_zed/hello"}}}`},
		{"unknown extension notification is ignored", `{"jsonrpc":"2.0","method":"_zed/hello","params":{}}`, ``},
		{"unknown notification is ignored", `{"jsonrpc":"2.0","method":"session/fly","params":{}}`, ``},
		{"protocolVersion as a string", `{"jsonrpc":"2.0","id":113,"method":"initialize","params":{"protocolVersion":"1"}}`,
			`{"jsonrpc":"2.0","id":113,"error":{"code":-32602,"message":"Invalid params: protocolVersion: expected integer",
				"data":{"field":"protocolVersion","reason":"expected integer"}}}`},
		{"initialize without params", `{"jsonrpc":"2.0","id":114,"method":"initialize"}`,
			`{"jsonrpc":"2.0","id":114,"error":{"code":-32602,"message":"Invalid params: params: required",
				"data":{"field":"params","reason":"required"}}}`},
		{"session/new without cwd", `{"jsonrpc":"2.0","id":115,"method":"session/new","params":{"mcpServers":[]}}`,
			`{"jsonrpc":"2.0","id":115,"error":{"code":-32602,"message":"Invalid params: cwd: required",
				"data":{"field":"cwd","reason":"required"}}}`},
		{"session/new with a relative cwd", `{"jsonrpc":"2.0","id":116,"method":"session/new","params":{"cwd":"src","mcpServers":[]}}`,
			`{"jsonrpc":"2.0","id":116,"error":{"code":-32602,"message":"Invalid params: cwd: must be an absolute path",
				"data":{"field":"cwd","reason":"must be an absolute path"}}}`},
		{"session/new without mcpServers", `{"jsonrpc":"2.0","id":117,"method":"session/new","params":{"cwd":"/tmp"}}`,
			`{"jsonrpc":"2.0","id":117,"error":{"code":-32602,"message":"Invalid params: mcpServers: required",
				"data":{"field":"mcpServers","reason":"required"}}}`},
		{"session/new with cwd of the wrong type", `{"jsonrpc":"2.0","id":118,"method":"session/new","params":{"cwd":5,"mcpServers":[]}}`,
			`{"jsonrpc":"2.0","id":118,"error":{"code":-32602,"message":"Invalid params: cwd: expected string",
				"data":{"field":"cwd","reason":"expected string"}}}`},
		{"prompt for an unknown session", `{"jsonrpc":"2.0","id":119,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`,
			`{"jsonrpc":"2.0","id":119,"error":{"code":-32002,"message":"Resource not found",
				"data":{"sessionId":"nope","reason":"no session \"nope\" on this connection"}}}`},
		{"prompt without a prompt", `{"jsonrpc":"2.0","id":120,"method":"session/prompt","params":{"sessionId":"nope"}}`,
			`{"jsonrpc":"2.0","id":120,"error":{"code":-32602,"message":"Invalid params: prompt: required",
				"data":{"field":"prompt","reason":"required"}}}`},
		{"prompt with an unknown content type", `{"jsonrpc":"2.0","id":121,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"hologram"}]}}`,
			`{"jsonrpc":"2.0","id":121,"error":{"code":-32602,"message":"Invalid params: prompt[0].type: unknown ContentBlock type \"hologram\"",
				"data":{"field":"prompt[0].type","reason":"unknown ContentBlock type \"hologram\""}}}`},
		{"cancel for an unknown session is ignored", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`, ``},
		{"close an unknown session", `{"jsonrpc":"2.0","id":122,"method":"session/close","params":{"sessionId":"nope"}}`,
			`{"jsonrpc":"2.0","id":122,"error":{"code":-32002,"message":"Resource not found",
				"data":{"sessionId":"nope","reason":"no session \"nope\" on this connection"}}}`},
		{"load without the capability", `{"jsonrpc":"2.0","id":123,"method":"session/load","params":{"sessionId":"a","cwd":"/tmp","mcpServers":[]}}`,
			`{"jsonrpc":"2.0","id":123,"error":{"code":-32601,"message":"Method not found",
				"data":{"method":"session/load","reason":"this agent cannot load sessions (loadSession is false)"}}}`},
		{"logout without a login", `{"jsonrpc":"2.0","id":124,"method":"logout","params":{}}`,
			`{"jsonrpc":"2.0","id":124,"error":{"code":-32601,"message":"Method not found",
				"data":{"method":"logout","reason":"this agent has no login"}}}`},
		{"authenticate with an unknown method", `{"jsonrpc":"2.0","id":125,"method":"authenticate","params":{"methodId":"magic"}}`,
			`{"jsonrpc":"2.0","id":125,"error":{"code":-32602,"message":"Invalid params: methodId: not one of the authMethods this agent advertised",
				"data":{"field":"methodId","reason":"not one of the authMethods this agent advertised"}}}`},
		{"string id is echoed", `{"jsonrpc":"2.0","id":"abc","method":"session/fly"}`,
			`{"jsonrpc":"2.0","id":"abc","error":{"code":-32601,"message":"Method not found","data":{"method":"session/fly"}}}`},
	}
	e := startEditor(t, &scriptAdapter{})
	e.initialize()
	e.nextID = 1000 // the table's ids are below
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.send(tt.send)
			if tt.want != "" {
				jsonEqual(t, e.next(), tt.want)
			}
			// The connection still serves; and nothing else was written
			// for the bad message (the next frame is the probe's answer).
			probe := e.call("initialize", map[string]any{"protocolVersion": 1})
			if got := e.next(); got["id"] != float64(probe) || got["result"] == nil {
				t.Fatalf("after the bad message, got %v; want the answer to request %d", got, probe)
			}
		})
	}
}

func TestRequestsBeforeInitializeAreRefused(t *testing.T) {
	e := startEditor(t, &scriptAdapter{})
	ans, _ := e.answer(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
	jsonEqual(t, ans["error"], `{"code":-32600,"message":"Invalid request: initialize must be called before session/new"}`)
	e.initialize()
	e.newSession()
}

// TestOversizedMessageIsRefusedAndTheConnectionGoesOn sends a prompt over
// the default 64 MiB limit: it is answered with its own id, so the editor's
// request does not wait forever, and the connection goes on. The prompt is
// written a block at a time as the bridge reads it, which keeps the test
// fast (building and checking a 64 MiB string under the race detector took
// half a minute).
func TestOversizedMessageIsRefusedAndTheConnectionGoesOn(t *testing.T) {
	e := startEditor(t, &scriptAdapter{})
	e.initialize()
	head := `{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"`
	block := strings.Repeat("a", 64<<10)
	if _, err := io.WriteString(e.w, head); err != nil {
		t.Fatal(err)
	}
	for range (64 << 20) / len(block) {
		if _, err := io.WriteString(e.w, block); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(e.w, `"}]}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, e.next(), fmt.Sprintf(`{"jsonrpc":"2.0","id":99,"error":{"code":-32600,"message":"message of %d bytes exceeds the 64 MiB limit"}}`,
		len(head)+64<<20+len(`"}]}}`)))
	e.newSession()
}

// TestMessageUnderTheLimitIsServed reads a message just under the limit in
// full (a base64 image of tens of MiB is a normal prompt) and refuses one
// just over it. The limit is small here so that the test is fast;
// TestOversizedMessageIsRefusedAndTheConnectionGoesOn uses the default one.
func TestMessageUnderTheLimitIsServed(t *testing.T) {
	const limit = 256 << 10
	e := startEditorOpts(t, &scriptAdapter{}, acptest.Load(t), bridge.Options{MaxMessageSize: limit})
	e.initialize()
	prompt := func(id, size int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"image","mimeType":"image/png","data":"`, id)
		tail := `"}]}}`
		return head + strings.Repeat("A", size-len(head)-len(tail)) + tail
	}
	e.send(prompt(98, limit))
	got := e.next()
	if errObj, _ := got["error"].(map[string]any); got["id"] != float64(98) || errObj == nil || errObj["code"] != float64(-32002) {
		t.Fatalf("prompt of %d bytes answered %v, want -32002 for its unknown session (so it was decoded)", limit, got)
	}
	e.send(prompt(97, limit+1))
	jsonEqual(t, e.next(), `{"jsonrpc":"2.0","id":97,"error":{"code":-32600,"message":"message of 262145 bytes exceeds the 256 KiB limit"}}`)
	e.newSession()
}
