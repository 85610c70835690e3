package acp

// Method names of ACP v1 (schema meta.json), plus the legacy
// session/set_model.
const (
	// Agent methods: the editor calls them on the agent.

	MethodInitialize             = "initialize"
	MethodAuthenticate           = "authenticate"
	MethodLogout                 = "logout"
	MethodSessionNew             = "session/new"
	MethodSessionLoad            = "session/load"
	MethodSessionResume          = "session/resume"
	MethodSessionList            = "session/list"
	MethodSessionClose           = "session/close"
	MethodSessionDelete          = "session/delete"
	MethodSessionPrompt          = "session/prompt"
	MethodSessionCancel          = "session/cancel" // notification
	MethodSessionSetMode         = "session/set_mode"
	MethodSessionSetConfigOption = "session/set_config_option"
	// MethodSessionSetModel is not in the stable v1 schema. Older editors
	// (before session config options) still send it to pick a model.
	MethodSessionSetModel = "session/set_model"

	// Client methods: the agent calls them on the editor.

	MethodSessionUpdate            = "session/update" // notification
	MethodSessionRequestPermission = "session/request_permission"
	MethodFsReadTextFile           = "fs/read_text_file"
	MethodFsWriteTextFile          = "fs/write_text_file"
	MethodTerminalCreate           = "terminal/create"
	MethodTerminalOutput           = "terminal/output"
	MethodTerminalWaitForExit      = "terminal/wait_for_exit"
	MethodTerminalKill             = "terminal/kill"
	MethodTerminalRelease          = "terminal/release"
	// MethodElicitationCreate is modelled in form mode (elicitation.go);
	// MethodElicitationComplete is listed for completeness.
	MethodElicitationCreate   = "elicitation/create"
	MethodElicitationComplete = "elicitation/complete" // notification

	// Protocol methods: either side.

	MethodCancelRequest = "$/cancel_request" // notification
)
