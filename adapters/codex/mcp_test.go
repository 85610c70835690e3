package codex

import (
	"encoding/json"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestThreadConfig(t *testing.T) {
	got := threadConfig([]acp.McpServer{
		{Stdio: &acp.McpServerStdio{Name: "fs.tools", Command: "/bin/fs", Args: []string{"-v"}, Env: []acp.EnvVariable{{Name: "K", Value: "v"}}}},
		{HTTP: &acp.McpServerHttp{Name: "web", URL: "http://127.0.0.1:1/mcp", Headers: []acp.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
	}, []string{"/other"})
	want := `{"mcp_servers.fs_tools":{"args":["-v"],"command":"/bin/fs","env":{"K":"v"}},` +
		`"mcp_servers.web":{"http_headers":{"Authorization":"Bearer x"},"url":"http://127.0.0.1:1/mcp"},` +
		`"sandbox_workspace_write.writable_roots":["/other"]}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("config = %s\nwant %s", b, want)
	}
	if c := threadConfig(nil, nil); c != nil {
		t.Errorf("config without servers or directories = %v, want none", c)
	}
}
