package codex

import (
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// threadConfig is the config override of thread/start for the editor's MCP
// servers and extra workspace roots, in Codex's config.toml keys: one
// mcp_servers.NAME table per server (stdio: command, args, env; HTTP: url,
// http_headers), so servers from the user's own config stay, and
// sandbox_workspace_write.writable_roots for additional directories. Codex
// speaks no MCP over SSE, so Info does not offer it. nil when there is
// nothing to override.
func threadConfig(servers []acp.McpServer, dirs []string) map[string]any {
	cfg := map[string]any{}
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
			cfg["mcp_servers."+key(s.Stdio.Name)] = map[string]any{"command": s.Stdio.Command, "args": args, "env": env}
		case s.HTTP != nil:
			h := map[string]string{}
			for _, x := range s.HTTP.Headers {
				h[x.Name] = x.Value
			}
			cfg["mcp_servers."+key(s.HTTP.Name)] = map[string]any{"url": s.HTTP.URL, "http_headers": h}
		}
	}
	if len(dirs) > 0 {
		cfg["sandbox_workspace_write.writable_roots"] = dirs
	}
	if len(cfg) == 0 {
		return nil
	}
	return cfg
}

// key makes a server name one segment of a dotted config key.
func key(name string) string {
	return strings.NewReplacer(".", "_", " ", "_").Replace(name)
}
