// Package acp holds the wire types of the Agent Client Protocol (ACP),
// version 1, as the bridge speaks it: request, response and notification
// parameters, the unions they carry, method names, error codes, and the
// contract between the bridge and its adapters: Adapter, Session and their
// optional interfaces (adapter.go, agent.go), and the Client interface
// through which adapters reach the editor.
//
// The contract lives in this package rather than one of its own because it
// is made of these types: a package apart would import this one for every
// signature and hold nothing else, and both sides import this one anyway.
//
// The types follow the official v1 JSON schema: Go type names equal the
// schema's $defs names, with "Id" spelled "ID"; JSON field names and
// optionality match the schema exactly. Unions are structs with one pointer
// per variant and hand-written (Un)MarshalJSON keyed on the discriminator;
// an unknown discriminator is a decoding error, never a silent wrong variant.
// Arrays the schema requires marshal as [] even when nil.
//
// The shapes a turn streams by the thousand (message chunks, tool_call,
// tool_call_update) are encoded by hand-written appenders that write exactly
// the bytes encoding/json would; SessionNotification.AppendJSON lets the
// connection encode a session/update without reflection.
//
// Besides the contract's interfaces the package is data only. It imports
// only the standard library, does not log, and knows nothing about framing
// or transports (those belong to internal/jsonrpc, which in turn does not
// import this package).
package acp
