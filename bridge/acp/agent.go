package acp

import "context"

// The types below are the session side of the contract between the protocol
// core (package bridge) and the adapters that wrap coding CLIs; Adapter and
// its optional interfaces are in adapter.go. They live here, not in bridge,
// because adapters may only import this package: a method signature that
// named a bridge type could not be implemented outside it.

// AgentInfo is what an adapter says about itself at initialize.
type AgentInfo struct {
	// Name and Title identify the wrapped agent (e.g. "claude", "Claude Code").
	Name, Title string
	// Version is the adapter's (or the wrapped agent's) version string.
	Version string
	// Prompt lists the content kinds the agent takes beyond text and links.
	Prompt PromptCapabilities
	// MCP lists the MCP transports the agent accepts beyond stdio.
	MCP McpCapabilities
	// AuthMethods are the ways a user can log in; empty when none is needed.
	AuthMethods []AuthMethod
	// AdditionalDirectories is true when session/new's additionalDirectories
	// are honoured.
	AdditionalDirectories bool
	// Steering is true when the adapter's sessions take messages into a
	// running turn (_session/steering): each implements Steerer.
	Steering bool
	// Meta is merged into agentCapabilities._meta.
	Meta map[string]any
}

// SessionState is the part of a session the bridge answers session/new,
// load and resume with.
type SessionState struct {
	Modes         *SessionModeState
	ConfigOptions []SessionConfigOption
	// Commands, if non-nil, is sent as available_commands_update right after
	// the answer that opens the session.
	Commands []AvailableCommand
}

// Session is one ACP session served by an adapter.
//
// Prompt is called for one turn at a time: the bridge rejects a second prompt
// while one runs. Every update of the turn must have been sent through the
// session's Client (and the call returned) before Prompt returns; the bridge
// writes the session/prompt answer after Prompt returns, so nothing of a turn
// can trail its answer. When ctx is cancelled (session/cancel, a dropped
// connection, shutdown) Prompt stops the agent's work and returns
// StopReasonCancelled with a nil error; it must not return ctx.Err() for a
// cancel.
//
// SetMode, SetConfigOption and Close may be called while Prompt runs. Close
// ends the turn (if any), stops every process the session started, waits for
// them, and is idempotent.
type Session interface {
	// ID is the ACP session id.
	ID() SessionID
	// State is the session's current modes, config options and commands.
	State() SessionState
	// Prompt runs one turn.
	Prompt(ctx context.Context, req PromptRequest) (StopReason, error)
	// SetMode switches the session mode. The adapter reports the change with
	// current_mode_update and config_option_update through the Client.
	SetMode(ctx context.Context, mode SessionModeID) error
	// SetConfigOption sets one config option and returns the full new list.
	SetConfigOption(ctx context.Context, req SetSessionConfigOptionRequest) ([]SessionConfigOption, error)
	// Close ends the session.
	Close() error
}
