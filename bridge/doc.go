// Package bridge is the ACP agent side of acpbridge: it serves ACP v1 to an
// editor over a JSON-RPC connection and hands sessions, prompts, cancels and
// mode changes to an Adapter that speaks a wrapped CLI's native protocol.
//
// The package owns the protocol rules that hold for every wrapped agent:
// initialize before anything else, capability hygiene (nothing is advertised
// that the adapter cannot do), one turn at a time per session, every update of
// a turn written before the turn's answer, session/cancel handled ahead of
// any queue (and applied to a prompt read before it whose turn has not
// begun), a cancelled turn answered "cancelled" whatever the adapter or the
// agent returns, pending permission requests withdrawn on cancel, and
// available_commands_update sent only after the answer that opens a session.
// It holds every open session alike, whether the adapter serves it through
// the typed contract (acp.Session) or passes it through (acp.RawSession):
// what differs is in one place, the session's conduit (conduit.go).
//
// Imports go one way: bridge imports bridge/acp and internal/jsonrpc,
// never adapters/*. The contract an adapter implements (acp.Adapter and its
// optional interfaces) is declared in bridge/acp, which both sides import.
package bridge
