package e2e

import (
	"testing"
)

// TestServePassthroughAuthPerConnection: over HTTP, one bridge serves many
// clients with one adapter, and what one client does to its login stays
// its own. Each session runs in an agent process of its own, which the
// bridge logs in with the authenticate of the session's own connection:
// a client that never authenticated gets the agent's auth-required error,
// not a session logged in with another client's credentials.
func TestServePassthroughAuthPerConnection(t *testing.T) {
	t.Parallel()
	s := startServe(t, []string{"ACPAGENT_AUTH=1"}, "acp", "--name", "scripted", "--", acpAgentPath)
	a := dialRemote(t, s.url, "auth-a", "")
	b := dialRemote(t, s.url, "auth-b", "")
	newSession := func(r *remote) map[string]any {
		m, _ := r.until(answerTo(r.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})))
		return m
	}
	for _, r := range []*remote{a, b} {
		r.until(answerTo(r.call("initialize", map[string]any{"protocolVersion": 1})))
	}
	if m, _ := a.until(answerTo(a.call("authenticate", map[string]any{"methodId": "key"}))); m["error"] != nil {
		t.Fatalf("authenticate: %v", m)
	}
	if m := newSession(a); m["error"] != nil {
		t.Fatalf("session/new after authenticate: %v", m)
	}
	m := newSession(b)
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32000) {
		t.Errorf("session/new of a client that did not authenticate: %v, want the agent's -32000", m)
	}
	if m, _ := b.until(answerTo(b.call("authenticate", map[string]any{"methodId": "key"}))); m["error"] != nil {
		t.Fatalf("authenticate: %v", m)
	}
	if m := newSession(b); m["error"] != nil {
		t.Errorf("session/new after its own authenticate: %v", m)
	}
	s.stop(t)
}

// TestServePassthroughListPerConnection: the requests that name no
// session (session/list here) run logged in as their own client: after
// client A authenticates, client B's session/list still gets the agent's
// auth-required error, until B authenticates itself.
func TestServePassthroughListPerConnection(t *testing.T) {
	t.Parallel()
	s := startServe(t, []string{"ACPAGENT_AUTH=1"}, "acp", "--name", "scripted", "--", acpAgentPath)
	a := dialRemote(t, s.url, "list-a", "")
	b := dialRemote(t, s.url, "list-b", "")
	list := func(r *remote) map[string]any {
		m, _ := r.until(answerTo(r.call("session/list", map[string]any{})))
		return m
	}
	for _, r := range []*remote{a, b} {
		r.until(answerTo(r.call("initialize", map[string]any{"protocolVersion": 1})))
	}
	if m, _ := a.until(answerTo(a.call("authenticate", map[string]any{"methodId": "key"}))); m["error"] != nil {
		t.Fatalf("authenticate: %v", m)
	}
	if m := list(a); m["error"] != nil {
		t.Fatalf("session/list after authenticate: %v", m)
	}
	m := list(b)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32000) {
		t.Errorf("session/list of a client that did not authenticate: %v, want the agent's -32000", m)
	}
	if m, _ := b.until(answerTo(b.call("authenticate", map[string]any{"methodId": "key"}))); m["error"] != nil {
		t.Fatalf("authenticate: %v", m)
	}
	if m := list(b); m["error"] != nil {
		t.Errorf("session/list after its own authenticate: %v", m)
	}
	if m := list(a); m["error"] != nil {
		t.Errorf("session/list of the first client after the second authenticated: %v", m)
	}
	s.stop(t)
}
