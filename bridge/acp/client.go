package acp

import "context"

// Client is the editor as an adapter sees it: the calls an agent may make on
// the client side of ACP. The bridge implements it on top of its connection.
//
// All methods may be called concurrently, from any goroutine, and block until
// the editor answers or ctx is done. SessionUpdate sends a notification: it
// returns once the frame is written, and updates of one session are written
// in call order. Calls made after the session or connection has closed return
// an error. Capabilities never blocks and returns what the editor advertised
// at initialize; callers must check it before using fs/* or terminal/*.
type Client interface {
	// SessionUpdate sends session/update.
	SessionUpdate(ctx context.Context, n SessionNotification) error
	// RequestPermission calls session/request_permission. When the turn is
	// cancelled the editor answers with the cancelled outcome.
	RequestPermission(ctx context.Context, req RequestPermissionRequest) (RequestPermissionResponse, error)
	// CreateElicitation calls elicitation/create (needs Elicitation.Form
	// for form mode). When the turn is cancelled the editor's request is
	// withdrawn and the answer is the cancel action.
	CreateElicitation(ctx context.Context, req CreateElicitationRequest) (CreateElicitationResponse, error)
	// ReadTextFile calls fs/read_text_file (needs Fs.ReadTextFile).
	ReadTextFile(ctx context.Context, req ReadTextFileRequest) (ReadTextFileResponse, error)
	// WriteTextFile calls fs/write_text_file (needs Fs.WriteTextFile).
	WriteTextFile(ctx context.Context, req WriteTextFileRequest) (WriteTextFileResponse, error)
	// CreateTerminal calls terminal/create (needs Terminal).
	CreateTerminal(ctx context.Context, req CreateTerminalRequest) (CreateTerminalResponse, error)
	// TerminalOutput calls terminal/output.
	TerminalOutput(ctx context.Context, req TerminalOutputRequest) (TerminalOutputResponse, error)
	// WaitForTerminalExit calls terminal/wait_for_exit.
	WaitForTerminalExit(ctx context.Context, req WaitForTerminalExitRequest) (WaitForTerminalExitResponse, error)
	// KillTerminal calls terminal/kill.
	KillTerminal(ctx context.Context, req KillTerminalRequest) (KillTerminalResponse, error)
	// ReleaseTerminal calls terminal/release.
	ReleaseTerminal(ctx context.Context, req ReleaseTerminalRequest) (ReleaseTerminalResponse, error)
	// Capabilities are what the editor advertised at initialize (fs,
	// terminal, _meta such as terminal_output).
	Capabilities() ClientCapabilities
}
