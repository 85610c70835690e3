package acp

import (
	"context"
	"encoding/json"
)

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

// RawClient is the editor as a passthrough adapter sees it: an adapter whose
// agent speaks ACP itself forwards the agent's requests and notifications
// with their params unchanged, so fields, _meta and methods this package does
// not model reach the editor intact. The bridge's session clients implement
// it; an adapter type-asserts its Client to RawClient.
//
// The concurrency contract is Client's. NotifyRaw of one session keeps call
// order with SessionUpdate; before the answer that opens the session is
// written, notifications are held and written right after it.
type RawClient interface {
	Client
	// CallRaw sends a request of any method to the editor and returns its
	// result unchanged. An error answer comes back as *Error with the
	// editor's code, message and data. session/request_permission is
	// withdrawn on session/cancel like RequestPermission: the call then
	// returns the cancelled outcome.
	CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// NotifyRaw sends a notification of any method to the editor. params
	// must be one valid, compact JSON value (or empty): the adapter checks
	// the agent's output, and the bridge writes it as is. params may be
	// the adapter's read buffer: NotifyRaw copies what it keeps past the
	// call.
	NotifyRaw(ctx context.Context, method string, params json.RawMessage) error
	// InitializeParams are the params of the editor's initialize request,
	// unchanged, for an agent that must be initialized the same way.
	InitializeParams() json.RawMessage
}

// RawCallStarter is implemented by RawClients that can queue a request to
// the editor apart from waiting for its answer. A passthrough adapter calls
// StartCallRaw where it reads the agent's output and awaits elsewhere, so
// the request reaches the editor before the notifications the agent wrote
// after it (a session/update after session/request_permission), without
// the agent's stream waiting for the editor's answer. await is called once
// and returns what CallRaw would; StartCallRaw waits only while the
// editor reads slowly.
type RawCallStarter interface {
	StartCallRaw(ctx context.Context, method string, params json.RawMessage) (await func() (json.RawMessage, error))
}
