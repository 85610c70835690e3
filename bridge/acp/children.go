package acp

// Child sessions: the sub-agents an agent runs inside a session, shown to a
// client that advertised clientCapabilities.subagents (unstable) as
// sessions of their own. The adapter owns them (the bridge keeps no state
// for them beyond routing): it announces each child on its parent with a
// SubagentUpdate before anything of the child, sends the child's updates
// and questions through the child's Client, and ends each child with a
// final state. The bridge routes the client's session/cancel of a child to
// the session that announced it. An agent that speaks ACP itself announces
// its children in its own frames, which pass through unchanged; the bridge
// notes the ids they announce for the same routing.

// ChildClient is implemented by the Clients the Server gives adapters
// (and by those an adapter of adapters, such as adapters/auto, gives the
// adapters it wraps, when its own Client implements it).
// An adapter type-asserts its Client to it, and uses it only when
// Capabilities().Subagents is set: a client that did not advertise it
// must never see a child session.
type ChildClient interface {
	// Child returns the editor as the child session id sees it. Its
	// SessionUpdate, RequestPermission and CreateElicitation name id;
	// its other calls (fs, terminal) are the parent's. The child's
	// updates keep call order with the parent's (they are one stream)
	// and, like the parent's, are held until the parent session is
	// open. Child registers id on the connection, so that a
	// session/cancel naming it reaches the parent's ChildCanceller, until
	// the parent session closes. Calling it again for the same id
	// returns an equivalent client; calling it on a child's Client makes
	// a grandchild whose cancel reaches the same (root) session. The
	// adapter announces id (SubagentUpdate on the session the child
	// belongs to) before it sends anything through the child's Client.
	Child(id SessionID) Client
}

// ChildCanceller is implemented by Sessions (see Session) whose children
// can be cancelled one by one; a child announced with
// Capabilities.Cancel set must be. The Server calls CancelChild for a
// session/cancel whose sessionId is a child the session registered through
// ChildClient.Child; no turn of the parent is cancelled, and the parent's
// pending permission requests stay open.
type ChildCanceller interface {
	// CancelChild asks the child id to stop its current work. It is
	// called from the connection's read loop and must not block. The
	// child's end is reported as its state (SubagentUpdate idle with
	// stop reason cancelled) once the agent has stopped it, not by
	// CancelChild. It reports whether id is a child that was running.
	CancelChild(id SessionID) bool
}
