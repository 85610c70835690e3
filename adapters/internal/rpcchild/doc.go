// Package rpcchild is the JSON-RPC 2.0 client that the adapters run over a
// child process's stdin and stdout: the passthrough adapter (adapters/native)
// over a native-ACP agent, and the Codex adapter over `codex app-server`.
//
// The engine is internal/jsonrpc, the one the editor side rides: its Conn
// numbers the requests, matches the answers to them, fails every pending
// call when the child's output ends, routes the child's own requests and
// notifications in the order written (Options.Route) and skips lines that
// are not JSON-RPC, over its line stream (jsonrpc.NewLines) with its size
// bound. This package owns only what is particular to a child: naming it
// in errors (an answered error, and why its output ended), the direction
// of its trace, and logging what the engine reports.
//
// It imports internal/jsonrpc, the standard library and zerolog; it knows
// neither ACP nor Codex, and never imports bridge.
package rpcchild
