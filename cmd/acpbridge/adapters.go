package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// adapterEntry is one line of the adapter table: an agent, or a kind of
// agent, that the bridge serves, with all the command line says about it.
// The commands at top level and under serve, `agents` and `replay` are all
// made from the table, so a new adapter is its package plus one entry, and
// this is the only file of the command that names an agent.
type adapterEntry struct {
	name        string // the command; an agent's name in `agents` and in a recording's "agent" meta
	title       string // the product's name, in help, errors and editor configuration
	usage       string
	argsUsage   string
	description string
	example     string // arguments to show in the command's usage errors

	// native adapters speak ACP themselves: the bridge passes it through.
	// Help lists them after the adapters that translate a protocol.
	native  bool
	acpArgs []string // what puts a native CLI in ACP mode

	// An installable agent (exe set) has a line in `agents`, and a flag
	// and an environment variable that point the bridge at its executable.
	exe      string     // looked up on PATH
	env      string     // names the executable, instead of the flag
	pathFlag string     // names the executable
	install  string     // how to install it
	login    *loginSpec // the CLI's own interactive login, run by `acpbridge login` and terminal auth
	// ptyArgs are what the CLI needs, after its command, to be served
	// through its built-in PTY profile (the snippets of `agents` give them).
	ptyArgs []string

	// flags returns the command's flags, new for each command made from
	// the entry, and the constructor that reads them once parsed.
	flags func(d adapterEntry) ([]cli.Flag, buildFunc)

	// kind is the kind of recording (its "adapter" meta) that replay
	// plays through this adapter, with replay.
	kind   string
	replay replayFunc
	// profiles: its recordings are of a terminal, played with a PTY
	// profile that replay --profile may replace.
	profiles bool

	// reports are further lines of `agents` (the TUIs that the PTY
	// profiles drive).
	reports func(d adapterEntry, self string) []agentReport
}

// buildFunc builds an adapter from a command's parsed flags and arguments.
// Its errors are the command's (cli.Exit, usageError).
type buildFunc func(c *cli.Context, w wiring) (bridge.Adapter, error)

// replayFunc builds the adapter that plays rec.
type replayFunc func(d adapterEntry, w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error)

// replayCommand is the name of the command that serves recordings, which
// agents offers with the demo built into the binary.
const replayCommand = "replay"

// adapters is the adapter table, made once: every command of the command
// line and most of their help come from it, so a run reads it several
// times. Its readers copy entries out; none changes it.
func adapters() []adapterEntry {
	table.once.Do(func() { table.entries = adapterTable() })
	return table.entries
}

// table holds the adapter table once made. (A sync.OnceValue would make an
// initialization cycle: the table's functions read the table.)
var table struct {
	once    sync.Once
	entries []adapterEntry
}

// adapterTable makes the adapter table. Its order is what users see: help
// lists the commands of the adapters that translate a protocol in this
// order, then those of the native ones; `agents` lists the agents, and
// replay names the kinds of recording it plays, in this order.
func adapterTable() []adapterEntry {
	return []adapterEntry{
		{name: "claude", title: "Claude Code",
			usage:     "serve Claude Code (its stream-JSON control protocol) to the editor",
			argsUsage: "[-- EXTRA CLAUDE ARGS]",
			exe:       "claude", env: "ACPBRIDGE_CLAUDE_PATH", pathFlag: "claude-path",
			install: "npm install -g @anthropic-ai/claude-code",
			login: &loginSpec{args: []string{"auth", "login"}, status: []string{"auth", "status"}, keyEnv: "ANTHROPIC_API_KEY",
				how: "Sign in with your Claude account in the browser it opens."},
			// Its default mode lets a classifier decide instead of showing
			// the permission dialogs the PTY profile asks the editor.
			ptyArgs: []string{"--permission-mode", "default"},
			flags:   claudeFlags, kind: "claude", replay: replayClaude},
		{name: "acp", native: true,
			usage:     "serve any agent that speaks ACP itself, with the bridge's tracing, serving and process hygiene",
			argsUsage: "-- CMD [ARGS...]",
			example:   "gemini --acp",
			flags:     acpFlags, kind: "acp", replay: replayACP},
		{name: "codex", title: "Codex",
			usage:     "serve Codex (its app-server JSON-RPC protocol) to the editor",
			argsUsage: "[-- EXTRA CODEX APP-SERVER ARGS]",
			exe:       "codex", env: "ACPBRIDGE_CODEX_PATH", pathFlag: "codex-path",
			install: "npm install -g @openai/codex",
			login: &loginSpec{args: []string{"login"}, status: []string{"login", "status"}, keyEnv: "OPENAI_API_KEY",
				how: "Sign in with your ChatGPT account in the browser it opens."},
			flags: codexFlags, kind: "codex", replay: replayCodex},
		{name: "stream-json",
			usage:     "serve a Claude-Code-style CLI (Claude Code's stream-JSON protocol in its own dialect: built in, or a TOML file)",
			argsUsage: "[-- CMD [ARGS...]]",
			description: "The dialect names the CLI's flags, tools, permission modes and messages. Built-in dialects:\n" +
				"claude, qwen (Qwen Code). Without CMD the dialect's command runs; --print-dialect NAME\n" +
				"prints a built-in dialect as the template of a dialect file.",
			example: "--dialect qwen",
			flags:   streamJSONFlags, kind: "stream-json", replay: replayStreamJSON},
		{name: replayCommand,
			usage:     "serve a recorded session (Claude Code, a native-ACP CLI, Codex or a terminal agent) as if the wrapped agent were running (no CLI or credentials needed)",
			argsUsage: "FIXTURE",
			description: "FIXTURE is a recording (fixtures/<agent>/*.txtar in the repository), or demo: the recorded\n" +
				"Claude Code session built into acpbridge, to see what a session looks like in an editor.",
			example: "demo",
			flags:   replayFlags},
		{name: "pty",
			usage:     "serve an interactive terminal agent (a TUI or a line-prompt REPL) through a pseudo-terminal",
			argsUsage: "-- CMD [ARGS...]",
			description: "The profile says how the agent's screen looks when it is idle, busy or asking for permission.\n" +
				"Without --profile it is chosen by the command's name; an unknown command gets the generic\n" +
				"line-prompt profile. Built-in profiles: " + builtinProfiles() + ".",
			example: "aider",
			flags:   ptyFlags, kind: "pty", replay: replayPTY, profiles: true, reports: ptyReports},
		nativeEntry(adapterEntry{name: "gemini", title: "Gemini CLI", exe: "gemini", acpArgs: []string{"--acp"},
			env: "ACPBRIDGE_GEMINI_PATH", install: "npm install -g @google/gemini-cli",
			login: &loginSpec{creds: homeCreds(".gemini"), keyEnv: "GEMINI_API_KEY",
				how: "Gemini CLI starts and asks how to log in; once it has, quit it with /quit."}}),
		nativeEntry(adapterEntry{name: "qwen", title: "Qwen Code", exe: "qwen", acpArgs: []string{"--acp"},
			env: "ACPBRIDGE_QWEN_PATH", install: "npm install -g @qwen-code/qwen-code (needs Node.js 22 or later)",
			login: &loginSpec{creds: homeCreds(".qwen"), keyEnv: "OPENAI_API_KEY",
				how: "Qwen Code starts and asks how to log in; once it has, quit it with /quit."}}),
		nativeEntry(adapterEntry{name: "opencode", title: "opencode", exe: "opencode", acpArgs: []string{"acp"},
			env: "ACPBRIDGE_OPENCODE_PATH", install: "npm install -g opencode-ai",
			login: &loginSpec{args: []string{"auth", "login"}, how: "Choose a provider and give it your key or account."}}),
		nativeEntry(adapterEntry{name: "copilot", title: "GitHub Copilot CLI", exe: "copilot", acpArgs: []string{"--acp"},
			env: "ACPBRIDGE_COPILOT_PATH", install: "npm install -g @github/copilot",
			login: &loginSpec{args: []string{"login"}, how: "Sign in with your GitHub account in the browser it opens."}}),
	}
}

// nativeEntry completes the entry of an installable CLI that speaks ACP
// itself when run with its acpArgs: such a command differs from the next
// only in what the entry says.
func nativeEntry(d adapterEntry) adapterEntry {
	d.native = true
	d.usage = fmt.Sprintf("serve %s (%s %s) to the editor", d.title, d.exe, strings.Join(d.acpArgs, " "))
	d.argsUsage = "[-- EXTRA " + strings.ToUpper(d.name) + " ARGS]"
	d.pathFlag = "path"
	d.flags = nativeFlags
	return d
}

// command makes the entry's command; serve runs the adapter it builds (on
// stdio, or over HTTP under serve).
func (d adapterEntry) command(g *globals, serve serveFunc) *cli.Command {
	flags, build := d.flags(d)
	return &cli.Command{
		Name:        d.name,
		Usage:       d.usage,
		ArgsUsage:   d.argsUsage,
		Description: d.description,
		Flags:       flags,
		Action: func(c *cli.Context) error {
			if name := loginRequested(c); name != "" {
				return loginFromCommand(c, g, d, name)
			}
			a, err := build(c, g.wiring())
			if err != nil {
				return err
			}
			g.terminalAuth = terminalLogins(d)
			return serve(c, a)
		},
	}
}

// adapterCommands are the commands of the table, served by serve: auto
// (every installed agent) and those of the adapters that translate a
// protocol, and those of the native ones.
func adapterCommands(g *globals, serve serveFunc) (translating, native []*cli.Command) {
	translating = append(translating, autoCommand(g, serve))
	for _, d := range adapters() {
		if d.native {
			native = append(native, d.command(g, serve))
		} else {
			translating = append(translating, d.command(g, serve))
		}
	}
	return translating, native
}

// pathOption is the flag that points the bridge at an installable agent's
// executable.
func (d adapterEntry) pathOption(dest *string) cli.Flag {
	return &cli.StringFlag{Name: d.pathFlag, Value: d.exe, EnvVars: []string{d.env},
		Usage: "the " + d.title + " executable", Destination: dest}
}

// installable are the entries of the agents that have an executable.
func installable() []adapterEntry {
	var out []adapterEntry
	for _, d := range adapters() {
		if d.exe != "" {
			out = append(out, d)
		}
	}
	return out
}

// nativeTitle is the product name of a native-ACP agent known by name.
func nativeTitle(name string) string {
	for _, d := range installable() {
		if d.native && d.name == name {
			return d.title
		}
	}
	return name
}

// codeCompanionBase is the ACP adapter of CodeCompanion.nvim that the
// snippets of agents --editor codecompanion extend: its opencode adapter,
// whose handlers assume nothing of the agent behind the command (it takes
// whatever login the agent has). It is CodeCompanion's name, here because
// it is also an agent's.
const codeCompanionBase = "opencode"
