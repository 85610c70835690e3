package bridge

import (
	"context"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Adapter wraps one kind of coding agent and serves ACP sessions from it. It
// is the contract between the protocol core (this package) and the code that
// speaks a wrapped CLI's native protocol (packages under adapters/). Adapters
// never import this package; they satisfy the interface structurally.
//
// The contract fits the four kinds of wrapped agent the bridge supports:
//   - stream-JSON CLIs (Claude Code): one child process per session, NDJSON on
//     its stdin/stdout, control requests correlated by id;
//   - JSON-RPC app servers (codex app-server): one long-lived child serving many
//     threads, each ACP session mapped to a thread;
//   - native-ACP CLIs (Gemini, Qwen, opencode, Copilot): frames are passed
//     through, with session ids and capabilities mapped one to one;
//   - interactive TUIs on a PTY: one PTY per session, screen output turned into
//     message chunks, no tool calls or permissions.
//
// Lifetime: the Server calls Info once, before answering initialize, and Close
// once, at shutdown, after every session it opened has been closed. Everything
// else may be called concurrently from different requests, for different
// sessions. Methods that block must return promptly once ctx is done.
//
// Optional features are separate interfaces (Authenticator, Loader, Resumer,
// Lister). The Server advertises a capability only when the adapter implements
// the interface and Info does not turn it off, so a client is never offered
// what the adapter cannot do; a request for it is answered with
// method-not-found.
type Adapter interface {
	// Info describes the agent: identity, capabilities and auth methods.
	Info() Info

	// NewSession starts a session. It must answer quickly: a slow agent start
	// belongs in the background, and a failure to start is reported by the
	// session's first Prompt. The Client is the session's view of the editor;
	// updates sent through it before the session/new answer is written are
	// held by the Server and written right after it (ACP: clients drop updates
	// for sessions they don't know yet).
	NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (Session, error)

	// Close releases everything the adapter holds (warm processes, caches).
	Close() error
}

// Info is what an adapter says about itself at initialize.
type Info struct {
	// Name and Title identify the wrapped agent (e.g. "claude", "Claude Code").
	Name, Title string
	// Version is the adapter's (or the wrapped agent's) version string.
	Version string
	// Prompt lists the content kinds the agent takes beyond text and links.
	Prompt acp.PromptCapabilities
	// MCP lists the MCP transports the agent accepts beyond stdio.
	MCP acp.McpCapabilities
	// AuthMethods are the ways a user can log in; empty when none is needed.
	AuthMethods []acp.AuthMethod
	// AdditionalDirectories is true when session/new's additionalDirectories
	// are honoured.
	AdditionalDirectories bool
	// Meta is merged into agentCapabilities._meta.
	Meta map[string]any
}

// Session is one ACP session served by an adapter.
//
// Prompt is called for one turn at a time: the Server rejects a second prompt
// while one runs. Every update of the turn must have been sent through the
// Client (and the call returned) before Prompt returns; the Server writes the
// session/prompt answer after Prompt returns, so nothing of a turn can trail
// its answer. When ctx is cancelled (session/cancel, a dropped connection,
// shutdown) Prompt stops the agent's work and returns acp.StopReasonCancelled
// with a nil error; it must not return ctx.Err() for a cancel.
//
// SetMode, SetConfigOption and Close may be called while Prompt runs. Close
// ends the turn (if any), stops every process the session started and is
// idempotent.
type Session interface {
	// ID is the ACP session id.
	ID() acp.SessionID
	// State is the session's current modes, config options and slash
	// commands, as answered to session/new, load and resume.
	State() SessionState
	// Prompt runs one turn.
	Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error)
	// SetMode switches the session mode. The adapter reports the change with
	// current_mode_update and config_option_update through the Client.
	SetMode(ctx context.Context, mode acp.SessionModeID) error
	// SetConfigOption sets one config option and returns the full new list.
	SetConfigOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error)
	// Close ends the session.
	Close() error
}

// SessionState is the part of a session the Server answers with.
type SessionState struct {
	Modes         *acp.SessionModeState
	ConfigOptions []acp.SessionConfigOption
	// Commands, if non-nil, is sent as available_commands_update right after
	// the answer that opens the session.
	Commands []acp.AvailableCommand
}

// Authenticator is implemented by adapters whose agent needs a login.
type Authenticator interface {
	// Authenticate logs in with one of Info().AuthMethods.
	Authenticate(ctx context.Context, req acp.AuthenticateRequest) error
	// Logout forgets the credentials.
	Logout(ctx context.Context) error
	// Authenticated reports whether sessions can be opened now; when false,
	// session/new, load and prompt are answered with auth-required (-32000).
	Authenticated() bool
}

// Loader is implemented by adapters that can reopen a stored session and
// replay its history.
type Loader interface {
	// LoadSession replays the whole conversation through c as session/update
	// notifications, then returns the session. Unknown ids are reported with
	// an error wrapping acp.ErrResourceNotFound.
	LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (Session, error)
}

// Resumer is implemented by adapters that can reopen a stored session
// without replaying it.
type Resumer interface {
	ResumeSession(ctx context.Context, req acp.ResumeSessionRequest, c acp.Client) (Session, error)
}

// Lister is implemented by adapters that can list stored sessions.
type Lister interface {
	ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error)
}
