package bridge_test

import (
	"testing"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestTerminalAuth: the bridge's terminal logins are offered, after the
// adapter's own methods and checked against the schema, only to a client
// that enabled terminal auth (the capability, or the _meta key the ACP
// registry's checker sends), whether the bridge or the adapter answers
// initialize; the auth-required error lists them too, and authenticate
// refuses them (the client runs them, ACP AuthMethodTerminal).
func TestTerminalAuth(t *testing.T) {
	t.Parallel()
	login := acp.AuthMethodTerminal{ID: "claude-login", Name: "Log in to Claude Code",
		Env: map[string]string{"ACPBRIDGE_LOGIN": "claude"}, Args: []string{"login", "claude"}}
	const terminal = `{"id":"claude-login","name":"Log in to Claude Code","type":"terminal","args":["login","claude"],"env":{"ACPBRIDGE_LOGIN":"claude"}}`
	const own = `{"id":"login","name":"Log in"}`
	capsOn := map[string]any{"auth": map[string]any{"terminal": true}}
	metaOn := map[string]any{"_meta": map[string]any{"terminal-auth": true}}
	tests := []struct {
		name    string
		adapter func() bridge.Adapter
		caps    map[string]any
		want    string
	}{
		{"capability off", func() bridge.Adapter { return &authAdapter{scriptAdapter: &scriptAdapter{}} },
			map[string]any{}, `[` + own + `]`},
		{"capability on", func() bridge.Adapter { return &authAdapter{scriptAdapter: &scriptAdapter{}} },
			capsOn, `[` + own + `,` + terminal + `]`},
		{"registry checker's _meta", func() bridge.Adapter { return &authAdapter{scriptAdapter: &scriptAdapter{}} },
			metaOn, `[` + own + `,` + terminal + `]`},
		{"adapter answers initialize, capability off", func() bridge.Adapter { return &fwdAdapter{scriptAdapter: &scriptAdapter{}} },
			map[string]any{}, `[]`},
		{"adapter answers initialize, capability on", func() bridge.Adapter { return &fwdAdapter{scriptAdapter: &scriptAdapter{}} },
			capsOn, `[` + terminal + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := startEditorOpts(t, tt.adapter(), acptest.Load(t), bridge.Options{TerminalAuth: []acp.AuthMethodTerminal{login}})
			res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": tt.caps}))
			jsonEqual(t, res["authMethods"], tt.want)
			if _, ok := tt.adapter().(*fwdAdapter); ok {
				return
			}
			ans, _ := e.answer(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
			errObj, _ := ans["error"].(map[string]any)
			if errObj == nil || errObj["code"] != float64(-32000) {
				t.Fatalf("session/new before a login answered %v, want auth required", ans)
			}
			jsonEqual(t, errObj["data"].(map[string]any)["authMethods"], tt.want)
			bad, _ := e.answer(e.call("authenticate", map[string]any{"methodId": "claude-login"}))
			if bad["error"] == nil {
				t.Errorf("authenticate with the terminal method answered %v, want an error", bad)
			}
		})
	}
}
