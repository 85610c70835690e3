package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// editor is an ACP client the bridge can be configured in, and how its
// configuration says "run this command as an agent". Each shape follows
// the client's own documentation as of late 2026 (docs/editors.md names
// the sources): Zed's agent_servers with "type": "custom", JetBrains' acp.json,
// CodeCompanion's adapters.acp extended from one of its ACP adapters,
// avante.nvim's acp_providers, agent-shell's agent configs, acpx's agents.
type editor struct {
	name    string // as --editor takes it
	title   string
	where   string // the file the snippet goes in
	snippet func(self string, agents []agentReport) string
}

func editors() []editor {
	return []editor{
		{"zed", "Zed", "~/.config/zed/settings.json (merge into the top-level object)", zedSnippet(true)},
		{"jetbrains", "JetBrains IDEs (AI Assistant)", "~/.jetbrains/acp.json", zedSnippet(false)},
		{"codecompanion", "Neovim, CodeCompanion.nvim", "your Neovim configuration (init.lua)", codeCompanionSnippet},
		{"avante", "Neovim, avante.nvim", "your Neovim configuration (init.lua)", avanteSnippet},
		{"agent-shell", "Emacs, agent-shell", "your Emacs init file", agentShellSnippet},
		{"acpx", "acpx", "~/.config/acpx/config.json", acpxSnippet},
	}
}

func editorNames() string {
	var names []string
	for _, e := range editors() {
		names = append(names, e.name)
	}
	return strings.Join(names, ", ")
}

func findEditor(name string) (editor, bool) {
	for _, e := range editors() {
		if e.name == name {
			return e, true
		}
	}
	return editor{}, false
}

// writeEditor prints the editor's configuration for the agents: those
// installed here, or every one when none is.
func writeEditor(w io.Writer, e editor, self string, reports []agentReport) {
	var agents []agentReport
	for _, r := range reports {
		if r.Installed {
			agents = append(agents, r)
		}
	}
	note := "the agents installed here"
	if len(agents) == 0 {
		note = "every agent the bridge knows (none is installed here yet)"
		for _, r := range reports {
			if !strings.Contains(r.Name, ":") { // the TUIs only when installed
				agents = append(agents, r)
			}
		}
	}
	fmt.Fprintf(w, "%s: in %s, for %s:\n\n%s\n", e.title, e.where, note, e.snippet(self, agents))
}

// label is an agent's name in an editor's list.
func label(r agentReport) string {
	return strings.TrimSuffix(r.Title, " (acpbridge)") + " (acpbridge)"
}

// ident is the agent's name where a client wants an identifier.
var notIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

func ident(r agentReport, sep string) string {
	return "acpbridge" + sep + strings.Trim(notIdent().ReplaceAllString(strings.ToLower(r.Name), sep), sep)
}

func zedSnippet(custom bool) func(string, []agentReport) string {
	return func(self string, agents []agentReport) string {
		servers := map[string]any{}
		for _, r := range agents {
			s := map[string]any{"command": self, "args": r.Args}
			if custom {
				s["type"] = "custom"
			}
			servers[label(r)] = s
		}
		b, _ := json.MarshalIndent(map[string]any{"agent_servers": servers}, "", "  ")
		return string(b)
	}
}

func acpxSnippet(self string, agents []agentReport) string {
	all := map[string]any{}
	for _, r := range agents {
		all[ident(r, "-")] = map[string]any{"command": shellJoin(append([]string{self}, r.Args...))}
	}
	b, _ := json.MarshalIndent(map[string]any{"agents": all}, "", "  ")
	return string(b)
}

// luaList is argv as a Lua table of strings.
func luaList(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a) // Lua reads Go's quoting of printable text
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

// codeCompanionSnippet extends CodeCompanion's codeCompanionBase adapter:
// only the command and names change.
func codeCompanionSnippet(self string, agents []agentReport) string {
	var b strings.Builder
	b.WriteString("require(\"codecompanion\").setup({\n  adapters = {\n    acp = {\n")
	for _, r := range agents {
		id := ident(r, "_")
		fmt.Fprintf(&b, "      %s = function()\n", id)
		fmt.Fprintf(&b, "        return require(\"codecompanion.adapters\").extend(%q, {\n", codeCompanionBase)
		fmt.Fprintf(&b, "          name = %q,\n          formatted_name = %q,\n", id, label(r))
		fmt.Fprintf(&b, "          commands = { default = %s },\n", luaList(append([]string{self}, r.Args...)))
		b.WriteString("        })\n      end,\n")
	}
	b.WriteString("    },\n  },\n")
	if len(agents) > 0 {
		fmt.Fprintf(&b, "  interactions = { chat = { adapter = %q } },\n", ident(agents[0], "_"))
	}
	b.WriteString("})")
	return b.String()
}

func avanteSnippet(self string, agents []agentReport) string {
	var b strings.Builder
	b.WriteString("require(\"avante\").setup({\n")
	if len(agents) > 0 {
		fmt.Fprintf(&b, "  provider = %q,\n", ident(agents[0], "-"))
	}
	b.WriteString("  acp_providers = {\n")
	for _, r := range agents {
		fmt.Fprintf(&b, "    [%q] = { command = %q, args = %s },\n", ident(r, "-"), self, luaList(r.Args))
	}
	b.WriteString("  },\n})")
	return b.String()
}

// elispString quotes s for Emacs Lisp: backslash and double quote escaped.
func elispString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func agentShellSnippet(self string, agents []agentReport) string {
	var b strings.Builder
	for i, r := range agents {
		if i > 0 {
			b.WriteString("\n")
		}
		params := make([]string, len(r.Args))
		for j, a := range r.Args {
			params[j] = elispString(a)
		}
		prompt := elispString(strings.TrimSuffix(r.Title, " (acpbridge)") + "> ")
		fmt.Fprintf(&b, "(add-to-list 'agent-shell-agent-configs\n")
		fmt.Fprintf(&b, "  (lambda ()\n    (agent-shell-make-agent-config\n")
		fmt.Fprintf(&b, "     :identifier '%s\n", ident(r, "-"))
		fmt.Fprintf(&b, "     :mode-line-name %s\n     :buffer-name %s\n", elispString(label(r)), elispString(label(r)))
		fmt.Fprintf(&b, "     :shell-prompt %s\n     :shell-prompt-regexp %s\n", prompt, prompt)
		fmt.Fprintf(&b, "     :client-maker (lambda (buffer)\n")
		fmt.Fprintf(&b, "                     (agent-shell--make-acp-client :command %s\n", elispString(self))
		fmt.Fprintf(&b, "                                                   :command-params '(%s)\n", strings.Join(params, " "))
		fmt.Fprintf(&b, "                                                   :context-buffer buffer)))))\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
