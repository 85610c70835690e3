//go:build unix

package native_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// cliOptions runs the named pinned CLI offline against the model server
// at url (see fixtures/testsupport/agentenv). Without the CLI the test skips, or fails
// under CI=true.
func cliOptions(t *testing.T, name, url, root string) (native.Options, *agentenv.Env) {
	t.Helper()
	env := agentenv.Require(t, name, agentenv.Options{ModelURL: url, Root: root})
	return native.Options{Name: name, Path: env.Argv[0], Args: env.Argv[1:], Env: env.Env}, env
}

// geminiChats returns the contents of Gemini CLI's stored files of session
// id below home, by path.
func geminiChats(t *testing.T, home, id string) map[string][]byte {
	t.Helper()
	if len(id) < 8 {
		t.Fatalf("session id %q", id)
	}
	files, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*-"+id[:8]+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// TestGeminiStoredSessionProtected: the real Gemini CLI's session/load in
// a new process destroys the stored turns (fixtures/testsupport/agentenv QUIRKS.md,
// pinned in its loadDamages). Through the bridge, the editor is not offered
// loadSession, a load it asks anyway is refused before any Gemini process
// sees it, and the stored session file is byte for byte what the turn
// left.
func TestGeminiStoredSessionProtected(t *testing.T) {
	t.Parallel()
	const hello = "Hello from the scripted model."
	srv := modelserver.New(&modelserver.Scenario{
		Name:      "gemini-load",
		SideText:  "Scripted session",
		Turns:     []modelserver.Turn{{Match: "SAY-HELLO", Blocks: []modelserver.Block{modelserver.Text(hello)}}},
		Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Understood.")}},
	}, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	ao, env := cliOptions(t, "gemini", url, t.TempDir())

	e := start(t, options{agent: &ao})
	f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var init struct {
		Caps map[string]any `json:"agentCapabilities"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &init) != nil {
		t.Fatalf("initialize: %s %+v", f.Result, f.Error)
	}
	if init.Caps["loadSession"] != false {
		t.Errorf("loadSession offered: %v", init.Caps["loadSession"])
	}
	f = e.call("session/new", map[string]any{"cwd": env.Dir, "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil || r.SessionID == "" {
		t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	before := e.noteCount()
	if got := stopReason(t, e.call("session/prompt", prompt(r.SessionID, "SAY-HELLO please."))); got != "end_turn" {
		t.Fatalf("stopReason %q", got)
	}
	if got := chunks(e.notesSince(before)); len(got) == 0 {
		t.Fatal("no text in the turn")
	}
	stored := geminiChats(t, env.Home, r.SessionID)
	holds := false
	for _, b := range stored {
		holds = holds || bytes.Contains(b, []byte(hello))
	}
	if !holds {
		t.Fatalf("no stored file of session %s holds the turn: %d files", r.SessionID, len(stored))
	}

	e2 := start(t, options{agent: &ao})
	e2.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	drain(e2.toAgent)
	f = e2.call("session/load", map[string]any{"sessionId": r.SessionID, "cwd": env.Dir, "mcpServers": []any{}})
	if f.Error == nil || f.Error.Code != -32601 {
		t.Errorf("session/load answered %s %+v, want the bridge's -32601", f.Result, f.Error)
	}
	if m := drain(e2.toAgent); contains(m, "session/load") {
		t.Errorf("the load reached Gemini: %v", m)
	}
	for path, b := range stored {
		now, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(now, b) {
			t.Errorf("stored session %s changed (%v): %d bytes, was %d", filepath.Base(path), err, len(now), len(b))
		}
	}
}
