package e2e

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestAgentsListsPTYProfiles: `acpbridge agents` lists the built-in PTY
// profiles that name a command, with whether it is installed and editor
// snippets that run it through `acpbridge pty --profile`.
func TestAgentsListsPTYProfiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gemini := fakeCLI(t, dir, "gemini")
	claude := fakeCLI(t, dir, "claude")
	env := []string{"PATH=" + dir, "XDG_CACHE_HOME=" + t.TempDir()}
	stdout, stderr, code := runBridge(t, env, "agents", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got []struct {
		Name, Title, Path, Install string
		Installed                  bool
		Args                       []string
		Zed                        map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("agents --json: %v\n%s", err, stdout)
	}
	found := map[string]bool{}
	for _, a := range got {
		if !strings.HasPrefix(a.Name, "pty:") {
			continue
		}
		found[a.Name] = true
		if a.Name == "pty:generic" {
			t.Errorf("the generic profile names no command, yet is listed: %+v", a)
		}
		if a.Name == "pty:claude" {
			// Without it Claude Code shows no permission dialogs (its default
			// mode lets a classifier decide), and the editor is never asked.
			want := []string{"pty", "--profile", "claude", "--", claude, "--permission-mode", "default"}
			if !reflect.DeepEqual(a.Args, want) {
				t.Errorf("pty:claude args %v, want %v", a.Args, want)
			}
			if z := a.Zed["Claude Code 2.1.329 TUI (acpbridge)"]; !reflect.DeepEqual(z.Args, want) {
				t.Errorf("pty:claude Zed snippet %+v, want args %v", a.Zed, want)
			}
		}
		if a.Name != "pty:gemini" {
			continue
		}
		want := []string{"pty", "--profile", "gemini", "--", gemini}
		if !a.Installed || a.Path != gemini || !reflect.DeepEqual(a.Args, want) || a.Install != "npm install -g @google/gemini-cli" {
			t.Errorf("pty:gemini = %+v; want installed at %s, args %v and the npm install", a, gemini, want)
		}
		if z := a.Zed["Gemini CLI v0.61.0 TUI (acpbridge)"]; z.Command != binPath || !reflect.DeepEqual(z.Args, want) {
			t.Errorf("pty:gemini Zed snippet %+v", a.Zed)
		}
	}
	if !found["pty:gemini"] || !found["pty:claude"] || !found["pty:codex"] {
		t.Errorf("PTY profiles listed: %v; want claude, codex and gemini among them", found)
	}
	if found["pty:faketui"] {
		t.Error("agents lists faketui, the profile of the tests' fake TUI")
	}
	text, _, _ := runBridge(t, env, "agents")
	// The version of a TUI is not asked: its line says where it is, and
	// nothing else (once an empty "()").
	want := "pty:gemini (Gemini CLI v0.61.0 TUI (profile gemini, through a PTY))\n  installed:  " + gemini + "\n"
	if !strings.Contains(text, want) {
		t.Errorf("agents output lacks\n%s\nin:\n%s", want, text)
	}
	if strings.Contains(text, "faketui") {
		t.Errorf("agents output names faketui:\n%s", text)
	}
}
