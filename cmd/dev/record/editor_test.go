package main

import (
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// TestEditorSection: the editor's side of a recorded session is what makes
// the bridge send what the host sent; a permission answer goes to the
// bridge's own request ids, which count from 1.
func TestEditorSection(t *testing.T) {
	tests := []struct {
		name, kind, script, want string
	}{
		{"acp", "acp", `
< {"id":1,"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"acpbridge-record"}}}
< {"id":2,"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/home/user/project","mcpServers":[]}}
< {"id":3,"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}
> {"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}
< {"id":7,"jsonrpc":"2.0","result":{"outcome":{"outcome":"selected","optionId":"yes"}}}
< {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}
`, `{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},"clientInfo":{"name":"golden","version":"1"},"protocolVersion":1}}
{"id":2,"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/home/user/project","mcpServers":[]}}
{"id":3,"jsonrpc":"2.0","method":"session/prompt","params":{"prompt":[{"text":"hi","type":"text"}],"sessionId":"s"}}
{"id":1,"jsonrpc":"2.0","result":{"outcome":{"optionId":"yes","outcome":"selected"}}}
{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}
`},
		{"codex", "codex", `
< {"id":1,"method":"initialize","params":{}}
< {"method":"initialized"}
< {"id":2,"method":"account/read","params":{}}
< {"id":3,"method":"thread/start","params":{"cwd":"/home/user/project"}}
< {"id":4,"method":"model/list","params":{}}
< {"id":5,"method":"turn/start","params":{"threadId":"th","input":[{"type":"text","text":"hi","text_elements":[]}]}}
< {"id":0,"result":{"decision":"acceptForSession"}}
< {"id":6,"method":"turn/interrupt","params":{"threadId":"th","turnId":"tu"}}
`, `{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},"clientInfo":{"name":"golden","version":"1"},"protocolVersion":1}}
{"id":2,"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/home/user/project","mcpServers":[]}}
{"id":3,"jsonrpc":"2.0","method":"session/prompt","params":{"prompt":[{"text":"hi","type":"text"}],"sessionId":"th"}}
{"id":1,"jsonrpc":"2.0","result":{"outcome":{"optionId":"acceptForSession","outcome":"selected"}}}
{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"th"}}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := recording.ParseScript([]byte(tt.script))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(editorSection(tt.kind, steps)); got != tt.want {
				t.Errorf("editor section (-want +got)\n-%s\n+%s", strings.ReplaceAll(tt.want, "\n", "\n-"), strings.ReplaceAll(got, "\n", "\n+"))
			}
		})
	}
}
