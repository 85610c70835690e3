package acp

import (
	"context"
	"encoding/json"
)

// Adapter wraps one kind of coding agent and serves ACP sessions from it. It
// is the contract between the protocol core (package bridge, whose Server
// consumes it) and the code that speaks a wrapped CLI's native protocol
// (packages under adapters/). It is declared here, once, because both sides
// import this package and adapters never import bridge: every method names
// only types of this package, and each adapter asserts at compile time the
// optional interfaces it implements (var _ acp.Loader = (*Adapter)(nil)), so
// a signature that drifts fails the build instead of silently dropping a
// capability.
//
// The contract fits the four kinds of wrapped agent the bridge supports:
//   - stream-JSON CLIs (Claude Code): one child process per session, NDJSON on
//     its stdin/stdout, control requests correlated by id;
//   - JSON-RPC app servers (codex app-server): one long-lived child serving many
//     threads, each ACP session mapped to a thread;
//   - native-ACP CLIs (Gemini, Qwen, opencode, Copilot): frames are passed
//     through, with session ids and capabilities mapped one to one;
//   - interactive TUIs on a PTY: one PTY per session, the emulated screen
//     turned into message chunks, the dialogs a profile recognises into
//     permission requests, no tool calls.
//
// Lifetime: the Server calls Info once, before answering initialize, and Close
// once, at shutdown, after every session it opened has been closed. Everything
// else may be called concurrently from different requests, for different
// sessions. Methods that block must return promptly once ctx is done.
//
// Optional features are separate interfaces (Authenticator, Loader, Resumer,
// Lister, Deleter, Passthrough). The Server advertises a capability only when the adapter implements
// the interface and Info does not turn it off, so a client is never offered
// what the adapter cannot do; a request for it is answered with
// method-not-found.
type Adapter interface {
	// Info describes the agent: identity, capabilities and auth methods.
	Info() AgentInfo

	// NewSession starts a session. It must answer quickly: a slow agent start
	// belongs in the background, and a failure to start is reported by the
	// session's first Prompt. The one wait allowed is a short, bounded one
	// for something the answer must carry and nothing else can give, such as
	// the agent's model list the first time an agent is seen (the editor
	// picks a model from the answer); it ends with ctx. The Client is the session's view of the editor;
	// updates sent through it before the session/new answer is written are
	// held by the Server and written right after it (ACP: clients drop updates
	// for sessions they don't know yet).
	NewSession(ctx context.Context, req NewSessionRequest, c Client) (Session, error)

	// Close releases everything the adapter holds (warm processes, caches).
	Close() error
}

// Authenticator is implemented by adapters whose agent needs a login.
type Authenticator interface {
	// Authenticate logs in with one of Info().AuthMethods.
	Authenticate(ctx context.Context, req AuthenticateRequest) error
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
	// an error wrapping ErrResourceNotFound.
	LoadSession(ctx context.Context, req LoadSessionRequest, c Client) (Session, error)
}

// Resumer is implemented by adapters that can reopen a stored session
// without replaying it.
type Resumer interface {
	ResumeSession(ctx context.Context, req ResumeSessionRequest, c Client) (Session, error)
}

// Lister is implemented by adapters that can list stored sessions.
type Lister interface {
	ListSessions(ctx context.Context, req ListSessionsRequest) (ListSessionsResponse, error)
}

// Deleter is implemented by adapters that can delete stored sessions (the
// ones Lister lists).
type Deleter interface {
	// DeleteSession deletes what the agent stored of a session. The Server
	// closes the session first if this connection has it open; one still
	// open elsewhere (another HTTP client) is the adapter's to refuse.
	// Unknown ids are reported with an error wrapping
	// ErrResourceNotFound.
	DeleteSession(ctx context.Context, req DeleteSessionRequest) error
}

// Passthrough is implemented by adapters whose agent speaks ACP itself
// (gemini --acp, opencode acp, ...). Decoding such an agent's traffic into
// the typed structs of package acp would lose what the bridge does not model:
// unknown fields, _meta, extension methods, agent-to-client requests. So the
// Server keeps what it adds for every adapter (framing, size limits,
// bad-input errors, trace, HTTP, the connection's session table, one turn at
// a time, cancel preemption, the ordering of a turn's updates before its
// answer) and hands everything else over as raw params:
//
//   - initialize: the request is validated and recorded as usual, then
//     Initialize answers it; the adapter maps the agent's capabilities
//     (only what the agent advertises, plus what the bridge adds itself).
//   - session/new, session/load, session/resume: validated, then Open; the
//     answer is the agent's. The session must be a RawSession.
//   - session/prompt, session/set_mode, session/set_config_option,
//     session/set_model and any request or notification whose params name an
//     open session: that session's Forward or Notify.
//   - session/cancel stays a preempted cancel of the turn's ctx;
//     session/close stays the bridge's (the session's Close).
//   - every other request or notification (session/list, authenticate,
//     logout, extension methods): Forward or Notify here.
//
// The agent's requests and notifications reach the editor through the
// RawClient given to Open. When an adapter implements Passthrough, the
// Server ignores Info's capabilities and the Loader, Resumer, Lister and
// Authenticator interfaces: the agent's own answers decide.
type Passthrough interface {
	// Initialize answers the editor's initialize (params unchanged).
	Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Open opens a session with session/new, session/load or
	// session/resume and returns it with the agent's answer.
	Open(ctx context.Context, method string, params json.RawMessage, c RawClient) (RawSession, json.RawMessage, error)
	// Forward answers a request that names no open session. c is the
	// editor connection it came on, bound to no session: its
	// InitializeParams and AuthenticateParams (the connection's last
	// accepted authenticate) say which editor asks, so that under
	// acpbridge serve one client's login never answers another's
	// session/list. The adapter must not keep c past the call.
	Forward(ctx context.Context, method string, params json.RawMessage, c RawClient) (json.RawMessage, error)
	// Notify forwards a notification that names no open session; c is as
	// for Forward.
	Notify(ctx context.Context, method string, params json.RawMessage, c RawClient) error
}
