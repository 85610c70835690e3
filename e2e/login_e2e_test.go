//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestTerminalLoginFromEditor: an editor that can run terminal logins is
// offered one in initialize by the built binary, beside the agent's own
// methods, and running it the two ways editors read AuthMethodTerminal
// (args appended to the configured command with env merged, or args alone
// with env) runs the agent's login with the configured executable and
// exits 0 only once the login took. Gemini CLI is played by the scripted
// ACP agent: its "login" is its interface ending, and what says the login
// took is the auth type Gemini CLI writes in its settings.
func TestTerminalLoginFromEditor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "GEMINI_API_KEY=", "ACPBRIDGE_LOGIN=")
	configured := []string{"gemini", "--path", acpAgentPath}

	b := startLineBridge(t, bridgeproc.Options{Args: configured, Env: env})
	b.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"auth":{"terminal":true}}}}`)
	res := b.until("initialize result", 20*time.Second, func(m map[string]any) bool { return m["id"] == float64(1) })
	var method struct {
		ID   string            `json:"id"`
		Type string            `json:"type"`
		Args []string          `json:"args"`
		Env  map[string]string `json:"env"`
	}
	for _, m := range res["result"].(map[string]any)["authMethods"].([]any) {
		raw, _ := json.Marshal(m)
		json.Unmarshal(raw, &method)
		if method.Type == "terminal" {
			break
		}
	}
	if method.Type != "terminal" || method.ID != "gemini-login" {
		t.Fatalf("initialize offered no terminal login: %v", res["result"])
	}
	b.Stdin.Close()
	b.drain()

	withEnv := func(base []string) []string {
		for k, v := range method.Env {
			base = append(base, k+"="+v)
		}
		return base
	}
	appended := append(append([]string{}, configured...), method.Args...)
	replaced := method.Args
	login := func(args, env []string) (int, string) {
		cmd := exec.Command(binPath, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := login(appended, withEnv(env)); code != 1 || !strings.Contains(out, "still not logged in") {
		t.Errorf("a login that did not take exited %d: %s", code, out)
	}
	settings := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	if err := os.WriteFile(settings, []byte(`{"security":{"auth":{"selectedType":"oauth-personal"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := login(appended, withEnv(env)); code != 0 {
		t.Errorf("args appended, env merged: exit %d: %s", code, out)
	}
	if code, out := login(replaced, withEnv(append(env, "ACPBRIDGE_GEMINI_PATH="+acpAgentPath))); code != 0 {
		t.Errorf("args alone, with env: exit %d: %s", code, out)
	}
}
