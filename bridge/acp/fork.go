package acp

import "context"

// session/fork is not in the stable v1 schema yet: its request, answer and
// capability are in the unstable one (schema.unstable.json, marked
// **UNSTABLE**), and they are modelled here apart from the stable types so
// that they are easy to follow when the schema changes.

// MethodSessionFork is the unstable session/fork: a new session that starts
// with the history of an existing one, which stays as it was.
const MethodSessionFork = "session/fork"

// Forker is implemented by adapters that can fork a stored session: the
// new session has the conversation so far, the original is unchanged, and
// both can go on independently (and are both listed by Lister).
//
// The Server advertises sessionCapabilities.fork when the adapter
// implements Forker, and answers session/fork with invalid-request while
// the session to fork has a turn running on the connection: what a turn
// has half done is no state to fork, and the client can fork once the turn
// has ended (or send session/cancel first). A Forwarder that does not
// implement Forker gets session/fork through Open, with its agent's own
// capability.
type Forker interface {
	// ForkSession opens the fork and returns it; its ID is new. The
	// session forked may be open (idle) or only stored. Unknown ids are
	// reported with an error wrapping ErrResourceNotFound. Like
	// NewSession, it answers quickly: the fork's agent may start in the
	// background.
	ForkSession(ctx context.Context, req ForkSessionRequest, c Client) (Session, error)
}

// ForkSessionRequest is the params of session/fork (unstable).
//
// The schema's systemPrompt member is not modelled: clients send it only to
// agents that advertise sessionCapabilities.systemPrompt, which the bridge
// does not.
type ForkSessionRequest struct {
	// SessionID is the session to fork.
	SessionID SessionID `json:"sessionId"`
	// Cwd is the fork's working directory; it must be absolute.
	Cwd string `json:"cwd"`
	// AdditionalDirectories, when not empty, are the fork's extra
	// workspace roots, all of them.
	AdditionalDirectories []string       `json:"additionalDirectories,omitempty"`
	McpServers            []McpServer    `json:"mcpServers,omitempty"`
	Meta                  map[string]any `json:"_meta,omitempty"`
}

// ForkSessionResponse is the result of session/fork (unstable).
type ForkSessionResponse struct {
	// SessionID is the new session's.
	SessionID     SessionID             `json:"sessionId"`
	Modes         *SessionModeState     `json:"modes,omitempty"`
	ConfigOptions []SessionConfigOption `json:"configOptions,omitempty"`
	Meta          map[string]any        `json:"_meta,omitempty"`
}

// SessionForkCapabilities, when present in sessionCapabilities.fork,
// means session/fork is served (unstable).
type SessionForkCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// Validate checks sessionId and cwd (absolute), as for session/resume.
func (r ForkSessionRequest) Validate() error {
	return firstErr(requireString("sessionId", r.SessionID), requireAbs("cwd", r.Cwd),
		checkServers(r.McpServers), checkDirs(r.AdditionalDirectories))
}
