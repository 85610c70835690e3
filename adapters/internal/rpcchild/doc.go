// Package rpcchild is the JSON-RPC 2.0 client that the adapters run over a
// child process's stdin and stdout: the passthrough adapter (adapters/acp)
// over a native-ACP agent, and the Codex adapter over `codex app-server`.
//
// It owns what both need and nothing either translates: numbering the
// requests sent to the child and matching its answers to them, handing the
// child's own requests and notifications to the adapter in the order the
// child wrote them, reading lines of any size up to a bound (a thread's
// history or a prompt's images) and skipping lines that are not JSON-RPC,
// and, when the child's output ends, answering every pending call with an
// error that names the child.
//
// It imports only the standard library and zerolog; it knows neither ACP
// nor Codex, and never imports bridge.
package rpcchild
