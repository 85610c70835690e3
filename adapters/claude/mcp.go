package claude

import (
	"encoding/json"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// mcpConfig converts the editor's MCP servers into the CLI's --mcp-config
// JSON ({"mcpServers": {name: config}}); "" when there are none.
func mcpConfig(servers []acp.McpServer) (string, error) {
	if len(servers) == 0 {
		return "", nil
	}
	out := map[string]any{}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			args := s.Stdio.Args
			if args == nil {
				args = []string{}
			}
			out[s.Stdio.Name] = map[string]any{"type": "stdio", "command": s.Stdio.Command, "args": args, "env": env}
		case s.HTTP != nil:
			out[s.HTTP.Name] = map[string]any{"type": "http", "url": s.HTTP.URL, "headers": headers(s.HTTP.Headers)}
		case s.SSE != nil:
			out[s.SSE.Name] = map[string]any{"type": "sse", "url": s.SSE.URL, "headers": headers(s.SSE.Headers)}
		}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": out})
	if err != nil {
		return "", fmt.Errorf("%w: encoding MCP servers: %v", acp.ErrInvalidParams, err)
	}
	return string(b), nil
}

func headers(hs []acp.HttpHeader) map[string]string {
	m := map[string]string{}
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}
