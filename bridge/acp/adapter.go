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
// Lister, Deleter, Forker), and the Server treats every adapter alike: it
// advertises what the adapter declares, one way (capabilities.go: the
// optional interfaces it implements, and AgentInfo for what has no method
// of the Adapter), so a client is never offered what the adapter cannot
// do; a request for it is answered with method-not-found. Steering is
// served by the Session (Steerer) and declared in AgentInfo.Steering. Two more optional
// interfaces fit agents whose capabilities and traffic are their own, as
// native-ACP agents' are: Initializer answers initialize, and Forwarder
// takes, params unchanged, the requests the Server would otherwise have to
// decode into types that cannot hold all of them. Neither makes the Server
// ignore the others: an adapter that implements Forwarder and Lister gets
// session/list through Lister.
//
// Sub-agents the agent runs inside a session are shown, to a client that
// advertised clientCapabilities.subagents, as child sessions the adapter
// owns (children.go): the Client it is given implements ChildClient, whose
// Child is the client of one child, and a Session that implements
// ChildCanceller gets the client's session/cancel of its children.
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

// Initializer is implemented by adapters that answer initialize themselves:
// those whose capabilities are known only once their agent has been asked,
// and whose answer carries what this package does not model (an ACP agent's
// own agentInfo, _meta, capabilities newer than the bridge). The Server
// checks and records the editor's initialize as for every adapter (params
// validated, client capabilities kept for Client.Capabilities, params kept
// for RawClient.InitializeParams), then writes Initialize's answer instead
// of the one it derives from Info and the optional interfaces; Info then
// only names the agent. The answer must advertise only what the adapter
// serves through this contract, as the derived one does: its optional
// interfaces, or its agent's methods through Forwarder. A repeated
// initialize is asked again; the adapter answers it as it answered the first.
type Initializer interface {
	// Initialize answers the editor's initialize (params unchanged).
	Initialize(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
}

// Forwarder is implemented by adapters whose agent speaks ACP itself
// (gemini --acp, opencode acp, ...). Decoding such an agent's traffic into
// the types of this package would lose what the bridge does not model:
// unknown fields, _meta, extension methods, agent-to-client requests. So the
// Server hands a Forwarder, params unchanged, the requests whose params or
// answers it cannot model, and writes the agent's answers unchanged. It
// keeps what it does for every adapter: framing, size limits, bad-input
// errors, trace, HTTP, initialize before anything else, the connection's
// session table, one turn at a time, cancel preemption and a "cancelled"
// answer whatever the agent did, every update of a turn before its answer,
// updates held until the answer that opens their session.
//
// Which interface serves a request is decided per method, the same way for
// every adapter:
//
//   - session/new: Open, after the params are validated, for a Forwarder
//     (the answer is the agent's, fields the bridge does not model
//     included); the Server does not call a Forwarder's NewSession, which
//     may refuse. session/load, session/resume and session/fork: Loader,
//     Resumer and Forker when implemented, else Open. The sessions Open
//     returns are RawSessions.
//   - Requests that name a RawSession (session/prompt, with the turn rules
//     above; session/set_mode, set_config_option, set_model; extension
//     methods): that session's Forward, params not judged by the bridge's
//     model (a session not open here is answered resource-not-found).
//     Notifications that name one: its Notify.
//   - session/list, session/delete, authenticate, logout: Lister, Deleter
//     and Authenticator when implemented, else Forward here (or the named
//     RawSession's). An authenticate or logout the agent accepts is recorded
//     for the connection alone (the AuthenticateParams of its clients, see
//     Forward), as over HTTP one adapter serves every client.
//   - Every other request or notification (extension methods): Forward or
//     Notify here.
//   - session/cancel stays the Server's preempted cancel of the turn's ctx
//     (with no turn running, it reaches the session's Notify, as does a
//     cancel naming a child session the session announced); session/close
//     stays the Server's (the session's Close).
//
// The agent's requests and notifications reach the editor through the
// RawClient given to Open.
//
// Inside the Server a RawSession and a typed Session are one kind of
// open session: the handlers above reach either through the same calls,
// and a typed Session's requests are checked and served as ServeSession
// does (typed.go), which an adapter of adapters uses for the typed agents
// it drives from forwarded params.
type Forwarder interface {
	// Open opens a session with session/new, session/load,
	// session/resume or session/fork and returns it with the agent's
	// answer.
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

// RawSession is a session a Forwarder opened: its agent speaks ACP itself.
// It is not a Session: the bridge never decodes what it forwards to it, so
// it has no typed Prompt, SetMode or SetConfigOption to re-encode. After
// checking a request (framing, that the session exists, one turn at a time)
// the bridge hands it to Forward with its params unchanged and writes the
// agent's answer unchanged, so fields, _meta and newer methods pass through.
// Its modes, config options and commands are in the agent's answers, not
// in a SessionState.
//
// Forward of session/prompt keeps Session.Prompt's turn contract: every
// update of the turn has been sent through the session's client before
// Forward returns; when ctx is cancelled the agent is told at once and
// Forward returns within the adapter's grace, stopping the agent if it has
// not ended the turn (the bridge then answers "cancelled"). Forward, Notify
// and Close may be called concurrently with each other; Close is
// Session.Close's (it ends the turn, stops and waits for every process the
// session started, and is idempotent).
type RawSession interface {
	// ID is the ACP session id (the agent's).
	ID() SessionID
	// Forward sends one request about the session (session/prompt,
	// session/set_mode, session/set_config_option, an extension method whose
	// params name the session) and returns the agent's result unchanged, or
	// an *Error carrying the agent's error.
	Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Notify forwards a notification whose params name the session. The
	// bridge also hands it the editor's session/cancel when no turn runs
	// (a turn's cancel reaches Forward's ctx instead), and, params
	// unchanged, a session/cancel naming a child session the session
	// announced (a subagent_update it sent through NotifyRaw, or a child
	// its client made; see ChildClient), which must stop that child and
	// not the session's turn. Those calls come from the read loop and must
	// not block, and the cancel must reach the agent before anything the
	// session is sent after it.
	Notify(ctx context.Context, method string, params json.RawMessage) error
	// Close ends the session.
	Close() error
}
