package claude

// Qwen is Qwen Code's dialect (checked against 0.24.4): Claude Code's
// protocol with Qwen's flags, approval modes and tool names. It lists its
// models and slash commands through control requests of their own, picks
// its own session ids and ends a turn at its result (it sends no session
// state events). Its sessions are stored in a format of its own
// (~/.qwen/projects/*/chats), which the engine does not read: no load or
// list.
func Qwen() *Dialect {
	return &Dialect{
		Name: "qwen", Title: "Qwen Code", Command: "qwen",
		Install: "npm install -g @qwen-code/qwen-code (needs Node.js 22 or later)",
		Args: []string{"--input-format", "stream-json", "--output-format", "stream-json",
			"--include-partial-messages"},
		ModeArg: "--approval-mode", ModelArg: "--model",
		AddDirArg: "--add-dir", MCPConfigArg: "--mcp-config",
		Modes: []Mode{
			{ID: "default", Name: "Default", Description: "Ask before file edits and shell commands"},
			{ID: "plan", Name: "Plan", Description: "Analyse only: no file changes, no commands"},
			{ID: "auto-edit", Name: "Auto Edit", Description: "Edit files without asking; ask before commands"},
			{ID: "auto", Name: "Auto", Description: "A model classifier approves safe actions and blocks risky ones"},
			{ID: "yolo", Name: "YOLO", Description: "Run everything without asking"},
		},
		Models: "get_available_models", Commands: "supported_commands", Transcripts: "none", BuiltinTools: "none",
		// The tools 0.24.4 offers its model in the default approval mode,
		// their names and input members checked against its requests
		// (adapters/claude TestQwenStreamJSONToolTable); web_fetch is
		// deferred (the model finds it through tool_search), and the last
		// five are Qwen's own names for tools it does not offer by default.
		Tools: map[string]Tool{
			"run_shell_command": {Kind: "execute", Title: "{command}", Content: "description", Output: "console"},
			"write_file":        {Kind: "edit", Title: "Write {file_path}", Path: "file_path", DiffNew: "content", Output: "none"},
			"edit":              {Kind: "edit", Title: "Edit {file_path}", Path: "file_path", DiffOld: "old_string", DiffNew: "new_string", Output: "none"},
			"notebook_edit":     {Kind: "edit", Title: "Edit {notebook_path}", Path: "notebook_path", Output: "none"},
			"read_file":         {Kind: "read", Title: "Read {file_path}", Path: "file_path", Line: "offset"},
			"glob":              {Kind: "search", Title: "Find {pattern}", Path: "path"},
			"grep_search":       {Kind: "search", Title: "grep {pattern}", Path: "path"},
			"tool_search":       {Kind: "search", Title: "Find tools: {query}"},
			"tool_call":         {Kind: "other", Title: "{name}", Content: "arguments"},
			"skill":             {Kind: "other", Title: "Skill {skill}"},
			"ask_user_question": {Kind: "other", Title: "Ask the user"},
			"agent":             {Kind: "think", Title: "{description}", Content: "prompt"},
			"list_agents":       {Kind: "think", Title: "List agents"},
			"get_goal":          {Kind: "think", Title: "Read the goal"},
			"update_goal":       {Kind: "think", Title: "Update the goal: {status}", Content: "reason"},
			"web_fetch":         {Kind: "fetch", Title: "Fetch {url}", Content: "prompt"},
			"list_directory":    {Kind: "search", Title: "List {path}", Path: "path"},
			"web_search":        {Kind: "fetch", Title: "Search {query}"},
			"todo_write":        {Kind: "think", Title: "Update TODOs"},
			"save_memory":       {Kind: "other", Title: "Save Memory", Content: "fact"},
			"exit_plan_mode":    {Kind: "switch_mode", Title: "Ready to code?", Content: "plan"},
		},
	}
}
