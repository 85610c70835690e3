package claude

import (
	"slices"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Dialect is what one Claude-Code-style CLI says differently on the
// stream-JSON protocol the engine speaks: its command line, how it names
// and describes its tools, its permission modes, where it keeps its
// transcripts, and the names of its messages. Claude Code is the built-in
// dialect Claude; others are built in (Qwen Code) or read from TOML files
// users write (ParseDialect). A Dialect is not changed once an Adapter has
// it.
type Dialect struct {
	// Name is the dialect's short name (logs, errors, --print-dialect).
	Name string `toml:"name,omitempty"`
	// Title is the product's name, in errors shown to the user.
	Title string `toml:"title,omitempty"`
	// Command is the executable run when no path is given.
	Command string `toml:"command,omitempty"`
	// Install says how to install the CLI, in the error for a missing one.
	Install string `toml:"install,omitempty"`
	// LoginHint says what an editor user can do when the CLI is not
	// logged in (its own message names commands of its terminal
	// interface, which no editor can send); empty: a hint built from
	// Title and Command.
	LoginHint string `toml:"login_hint,omitempty"`
	// Args put the CLI in stream-JSON mode, both ways, with partial
	// messages and permission questions as control requests.
	Args []string `toml:"args,omitempty"`
	// Env holds extra "KEY=value" entries for the CLI's environment.
	Env []string `toml:"env,omitempty"`
	// SessionArg and ResumeArg start a new session with a given id and
	// resume a stored one; "{id}" is replaced by the session id. Without
	// SessionArg the CLI picks its own id, which the session then uses
	// internally only; without ResumeArg stored sessions cannot be loaded.
	SessionArg string `toml:"session_arg,omitempty"`
	ResumeArg  string `toml:"resume_arg,omitempty"`
	// ForkArg, added to ResumeArg (the source's id) and SessionArg (the
	// new id), starts a new session with a stored one's conversation,
	// leaving the stored one as it was (ACP session/fork); empty: sessions
	// cannot be forked. Forking needs transcripts = "claude" as well.
	ForkArg string `toml:"fork_arg,omitempty"`
	// ModeArg and ModelArg are the flags that set the initial permission
	// mode and model (followed by the value); empty: not passed.
	ModeArg  string `toml:"mode_arg,omitempty"`
	ModelArg string `toml:"model_arg,omitempty"`
	// AddDirArg and MCPConfigArg pass additional directories and the
	// editor's MCP servers (a JSON config); empty: not supported.
	AddDirArg    string `toml:"add_dir_arg,omitempty"`
	MCPConfigArg string `toml:"mcp_config_arg,omitempty"`
	// Modes are the permission modes set_permission_mode accepts, the
	// first being the default one.
	Modes []Mode `toml:"modes,omitempty"`
	// Models says where the model list comes from: "initialize" (its
	// answer's models, as Claude Code lists them), "get_available_models"
	// (a control request of that name, after initialize), or "none".
	Models string `toml:"models,omitempty"`
	// Commands says where the slash commands come from: "initialize" or
	// "supported_commands" (a control request), or "none".
	Commands string `toml:"commands,omitempty"`
	// Transcripts says where the CLI keeps its sessions for load, list and
	// delete: "claude" (Claude Code's projects directory) or "none".
	Transcripts string `toml:"transcripts,omitempty"`
	// BuiltinTools, when "claude", describes the tools the Tools table
	// does not name as Claude Code's own (Bash, Read, Edit, ...).
	BuiltinTools string `toml:"builtin_tools,omitempty"`
	// Messages rename the CLI's message discriminators to Claude Code's.
	Messages Messages `toml:"messages,omitempty"`
	// Tools describe the CLI's tools by name. A tool named neither here
	// nor by BuiltinTools is shown with kind other, its name as title and
	// its raw input.
	Tools map[string]Tool `toml:"tools,omitempty"`

	claudeFeatures bool // Claude Code's own extensions: editor fs, effort, live shell output
}

// Mode is one permission mode offered as an ACP session mode.
type Mode struct {
	ID          string `toml:"id,omitempty"`
	Name        string `toml:"name,omitempty"`
	Description string `toml:"description,omitempty"`
	line        int
}

// Messages say how the CLI names what Claude Code calls type and subtype.
// The engine reads and writes Claude Code's names; a line from the CLI is
// renamed on the way in, and one to it on the way out.
type Messages struct {
	// TypeField and SubtypeField are the members that carry a message's
	// type and subtype (Claude Code: "type" and "subtype"). SubtypeField
	// is renamed in control requests and responses too.
	TypeField    string `toml:"type_field,omitempty"`
	SubtypeField string `toml:"subtype_field,omitempty"`
	// Types and Subtypes map the CLI's values to Claude Code's.
	Types    map[string]string `toml:"types,omitempty"`
	Subtypes map[string]string `toml:"subtypes,omitempty"`
}

// Tool describes one tool of the CLI. Field names are members of the
// tool's input (dotted paths as gjson reads them).
type Tool struct {
	// Kind is the ACP tool kind: read, edit, delete, move, search,
	// execute, think, fetch, switch_mode or other.
	Kind string `toml:"kind,omitempty"`
	// Title is the title shown; "{field}" is replaced by that input
	// member, a path relative to the session's directory when inside it.
	// Empty: the tool's name.
	Title string `toml:"title,omitempty"`
	// Path is the member with the file the tool works on (a location).
	Path string `toml:"path,omitempty"`
	// Line is the member with the line it starts at.
	Line string `toml:"line,omitempty"`
	// Content is a member shown as text beside the tool call.
	Content string `toml:"content,omitempty"`
	// DiffOld and DiffNew are the members with the old and new text of
	// an edit; with DiffNew (and Path) the tool call shows a diff (a new
	// file when DiffOld is empty).
	DiffOld string `toml:"diff_old,omitempty"`
	DiffNew string `toml:"diff_new,omitempty"`
	// Output is how the tool's result is shown: "text" (default),
	// "console" (command output, fenced), or "none".
	Output string `toml:"output,omitempty"`
}

// Claude is Claude Code's dialect.
func Claude() *Dialect {
	return &Dialect{
		Name: "claude", Title: "Claude Code", Command: "claude",
		Install: "npm install -g @anthropic-ai/claude-code",
		// The editor offers the bridge's terminal login (when it can run
		// one); an API key needs no login at all.
		LoginHint: "Claude Code is not logged in. Choose \"Log in to Claude Code in a terminal\" among the editor's login methods, " +
			"or set ANTHROPIC_API_KEY in acpbridge's environment and restart the agent.",
		Args: []string{"--output-format", "stream-json", "--verbose",
			"--input-format", "stream-json", "--include-partial-messages",
			"--permission-prompt-tool", "stdio"},
		Env:        []string{"CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1"},
		SessionArg: "--session-id={id}", ResumeArg: "--resume={id}", ForkArg: "--fork-session",
		ModeArg: "--permission-mode", ModelArg: "--model",
		AddDirArg: "--add-dir", MCPConfigArg: "--mcp-config",
		Modes: []Mode{
			{ID: "default", Name: "Default", Description: "Ask before edits and commands"},
			{ID: "acceptEdits", Name: "Accept Edits", Description: "Edit files without asking; ask before commands"},
			{ID: "plan", Name: "Plan Mode", Description: "Explore and plan without changing anything"},
			{ID: "dontAsk", Name: "Don't Ask", Description: "Deny what is not already allowed instead of asking"},
			{ID: "bypassPermissions", Name: "Bypass Permissions", Description: "Run everything without asking"},
			{ID: "auto", Name: "Auto", Description: "A model classifier decides what needs approval"},
		},
		Models: "initialize", Commands: "initialize", Transcripts: "claude", BuiltinTools: "claude",
		claudeFeatures: true,
	}
}

// isClaude reports whether d has Claude Code's own extensions (effort,
// editor fs, live shell output, its stored transcripts).
func (d *Dialect) isClaude() bool { return d.claudeFeatures }

// validMode reports whether id is one of the dialect's modes.
func (d *Dialect) validMode(id string) bool {
	return slices.ContainsFunc(d.Modes, func(m Mode) bool { return m.ID == id })
}

// defaultMode is the mode a session starts in when none is chosen.
func (d *Dialect) defaultMode() string {
	if len(d.Modes) == 0 {
		return "default"
	}
	return d.Modes[0].ID
}

// sessionArgs are the arguments that start (or resume) session id.
func (d *Dialect) sessionArgs(resume bool, id string) []string {
	a := d.SessionArg
	if resume {
		a = d.ResumeArg
	}
	if a == "" {
		return nil
	}
	return []string{strings.ReplaceAll(a, "{id}", id)}
}

// toolKinds are the ACP tool kinds a dialect file may name.
func toolKinds() []acp.ToolKind {
	return []acp.ToolKind{acp.ToolKindRead, acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove,
		acp.ToolKindSearch, acp.ToolKindExecute, acp.ToolKindThink, acp.ToolKindFetch, acp.ToolKindSwitchMode,
		acp.ToolKindOther}
}
