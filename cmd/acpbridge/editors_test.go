package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestEditorSnippets renders every editor's configuration for two agents,
// one with a path that needs quoting, and checks each is well formed in
// its language and runs exactly the agent's command line: JSON decoded to
// the shape its client documents, Lua and Emacs Lisp read back to the argv.
func TestEditorSnippets(t *testing.T) {
	self := `/opt/my tools/acp"bridge`
	agents := []agentReport{
		{Name: "claude", Title: "Claude Code", Installed: true, Args: []string{"claude", "--claude-path", `/home/u/.local/bin/claude`}},
		{Name: "pty:codex", Title: "Codex CLI 0.169.0 TUI", Installed: true, Args: []string{"pty", "--profile", "codex", "--", "codex"}},
	}
	argv := func(r agentReport) []string { return append([]string{self}, r.Args...) }
	for _, e := range editors() {
		t.Run(e.name, func(t *testing.T) {
			out := e.snippet(self, agents)
			switch e.name {
			case "zed", "jetbrains":
				var cfg struct {
					Servers map[string]struct {
						Type    *string  `json:"type"`
						Command string   `json:"command"`
						Args    []string `json:"args"`
					} `json:"agent_servers"`
				}
				if err := json.Unmarshal([]byte(out), &cfg); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, out)
				}
				for _, r := range agents {
					s, ok := cfg.Servers[label(r)]
					if !ok || s.Command != self || !reflect.DeepEqual(s.Args, r.Args) {
						t.Errorf("%s: entry %+v, want command %q args %q", r.Name, s, self, r.Args)
					}
					if (e.name == "zed") != (s.Type != nil && *s.Type == "custom") {
						t.Errorf("%s: type %v (Zed wants \"custom\", JetBrains none)", r.Name, s.Type)
					}
				}
			case "acpx":
				var cfg struct {
					Agents map[string]struct{ Command string } `json:"agents"`
				}
				if err := json.Unmarshal([]byte(out), &cfg); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, out)
				}
				for _, r := range agents {
					if got := cfg.Agents[ident(r, "-")].Command; got != shellJoin(argv(r)) {
						t.Errorf("%s: command %q", r.Name, got)
					}
				}
			case "codecompanion", "avante":
				lists := luaStringLists(t, out)
				for _, r := range agents {
					want := argv(r)
					if e.name == "avante" {
						want = r.Args // the command is its own field
						if !strings.Contains(out, "command = "+luaQuote(self)) {
							t.Errorf("no command = %s in\n%s", luaQuote(self), out)
						}
					}
					if !containsList(lists, want) {
						t.Errorf("%s: no Lua list %q in\n%s", r.Name, want, out)
					}
				}
			case "agent-shell":
				lists := elispLists(t, out)
				for _, r := range agents {
					if !containsList(lists, r.Args) || !strings.Contains(out, ":command "+elispString(self)) {
						t.Errorf("%s: no command %q with params %q in\n%s", r.Name, self, r.Args, out)
					}
				}
			default:
				t.Fatalf("no check for editor %s", e.name)
			}
		})
	}
}

func TestAgentsEditorFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"acpbridge", "agents", "--editor", "vim"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--editor \"vim\" is not one of zed, jetbrains, codecompanion, avante, agent-shell, acpx") {
		t.Errorf("an unknown editor: exit %d, stderr %q", code, stderr.String())
	}
	t.Setenv("PATH", t.TempDir()) // nothing installed: every agent is listed
	stdout.Reset()
	if code := run(t.Context(), []string{"acpbridge", "agents", "--editor", "avante"}, &stdout, &stderr); code != 0 {
		t.Fatalf("agents --editor avante: exit %d: %s", code, stderr.String())
	}
	for _, d := range installable() {
		if !strings.Contains(stdout.String(), `["acpbridge-`+d.name+`"]`) {
			t.Errorf("avante configuration has no provider for %s:\n%s", d.name, stdout.String())
		}
	}
}

func luaQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func containsList(lists [][]string, want []string) bool {
	for _, l := range lists {
		if reflect.DeepEqual(l, want) {
			return true
		}
	}
	return false
}

// luaStringLists reads the Lua tables made only of string literals in
// src, failing on brackets that do not balance outside strings.
func luaStringLists(t *testing.T, src string) [][]string {
	t.Helper()
	return readLists(t, src, '{', '}', ',')
}

// elispLists reads the quoted lists of string literals in src.
func elispLists(t *testing.T, src string) [][]string {
	t.Helper()
	return readLists(t, src, '(', ')', 0)
}

// readLists scans src for string literals (double-quoted, backslash
// escapes) and brackets, and returns each innermost bracketed group that
// holds only strings (and separators), decoded.
func readLists(t *testing.T, src string, open, close, sep byte) [][]string {
	t.Helper()
	type group struct {
		items []string
		other bool
	}
	var stack []*group
	var out [][]string
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			var b strings.Builder
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
				b.WriteByte(src[i])
			}
			if i == len(src) {
				t.Fatalf("unterminated string in\n%s", src)
			}
			if n := len(stack); n > 0 {
				stack[n-1].items = append(stack[n-1].items, b.String())
			}
		case c == open:
			if n := len(stack); n > 0 {
				stack[n-1].other = true
			}
			stack = append(stack, &group{})
		case c == close:
			if len(stack) == 0 {
				t.Fatalf("unbalanced %q at %d in\n%s", close, i, src)
			}
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !g.other && len(g.items) > 0 {
				out = append(out, g.items)
			}
		case c == ' ' || c == '\n' || (sep != 0 && c == sep):
		default:
			if n := len(stack); n > 0 {
				stack[n-1].other = true
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%d unclosed %q in\n%s", len(stack), open, src)
	}
	return out
}
