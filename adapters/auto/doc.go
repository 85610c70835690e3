// Package auto serves several agents behind one ACP entry: each session
// runs the agent its editor chose in the session's "agent" config option
// (a select listing the agents given, with their versions), the first one
// by default. Choosing another agent opens a new session of that agent in
// place of the old one, under the same session id, and says so with a
// notice: the conversation starts anew, as the agents share no history.
//
// The Adapter knows agents only through the contract of package acp: it is
// given named factories of acp.Adapter and never imports an adapter, so
// every agent stays one package under adapters/ and the command line wires
// the installed ones in. It is an acp.Forwarder, because some of its agents
// speak ACP themselves and their traffic must pass unchanged; a session of
// an agent served through the typed contract (acp.Session) is driven here
// the way the bridge drives one, from the params the bridge forwards, with
// the bridge's own checks (acp.ServeSession) and capabilities
// (acp.Capabilities).
//
// What the bridge is told at initialize is what the default agent serves:
// its prompt and MCP capabilities and its auth methods. Session
// capabilities (load, resume, list, delete) are offered when some agent has
// them: session/list merges the agents' lists, page by page, and load,
// resume and delete go to the agent that listed or opened the session,
// the default agent for an id never seen. A session switched to another
// agent is, after a restart, the first agent's session again under its id:
// the other agent's conversation is listed under the id that agent gave
// it.
//
// Sub-agents are child sessions (clientCapabilities.subagents) as with the
// agent alone: a typed agent's client makes them through the bridge's
// (children.go), an ACP agent's announcements pass through, a child keeps
// its id where a session's frames are re-addressed, and the editor's
// session/cancel of a child reaches the agent that ran it.
//
// It imports only bridge/acp and the standard library (and zerolog), never
// package bridge or an adapter.
package auto
