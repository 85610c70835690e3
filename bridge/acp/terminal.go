package acp

// TerminalID identifies a client terminal.
type TerminalID string

// CreateTerminalRequest is the params of terminal/create (only when the
// client advertised terminal).
type CreateTerminalRequest struct {
	SessionID SessionID     `json:"sessionId"`
	Command   string        `json:"command"`
	Args      []string      `json:"args,omitempty"`
	Env       []EnvVariable `json:"env,omitempty"`
	// Cwd is absolute when set.
	Cwd *string `json:"cwd,omitempty"`
	// OutputByteLimit bounds the retained output; the client drops the
	// oldest bytes beyond it.
	OutputByteLimit *uint64        `json:"outputByteLimit,omitempty"`
	Meta            map[string]any `json:"_meta,omitempty"`
}

// CreateTerminalResponse is the result of terminal/create.
type CreateTerminalResponse struct {
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// TerminalOutputRequest is the params of terminal/output.
type TerminalOutputRequest struct {
	SessionID  SessionID      `json:"sessionId"`
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// TerminalOutputResponse is the result of terminal/output.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       map[string]any      `json:"_meta,omitempty"`
}

// TerminalExitStatus is how a terminal command ended.
type TerminalExitStatus struct {
	// ExitCode is nil when a signal ended the process.
	ExitCode *uint32 `json:"exitCode,omitempty"`
	// Signal is nil when the process exited normally.
	Signal *string        `json:"signal,omitempty"`
	Meta   map[string]any `json:"_meta,omitempty"`
}

// WaitForTerminalExitRequest is the params of terminal/wait_for_exit.
type WaitForTerminalExitRequest struct {
	SessionID  SessionID      `json:"sessionId"`
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// WaitForTerminalExitResponse is the result of terminal/wait_for_exit.
type WaitForTerminalExitResponse struct {
	ExitCode *uint32        `json:"exitCode,omitempty"`
	Signal   *string        `json:"signal,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// KillTerminalRequest is the params of terminal/kill: stop the command but
// keep the terminal.
type KillTerminalRequest struct {
	SessionID  SessionID      `json:"sessionId"`
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// KillTerminalResponse is the result of terminal/kill.
type KillTerminalResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// ReleaseTerminalRequest is the params of terminal/release: kill the
// command if needed and free the terminal.
type ReleaseTerminalRequest struct {
	SessionID  SessionID      `json:"sessionId"`
	TerminalID TerminalID     `json:"terminalId"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// ReleaseTerminalResponse is the result of terminal/release.
type ReleaseTerminalResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}
