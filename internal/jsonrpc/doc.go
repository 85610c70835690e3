// Package jsonrpc is the one JSON-RPC 2.0 engine of the module: the bridge's
// ACP connection to the editor rides it, and so does every adapter's client
// of a child process that speaks JSON-RPC on its stdio (adapters/internal/
// rpcchild, for native-ACP agents and `codex app-server`).
//
// It owns three layers:
//
//   - the wire model: [Message] (a sealed union of [*Request] and [*Response]),
//     [ID], the wire [*Error] with its code sentinels, and [EncodeMessage] /
//     [DecodeMessage];
//   - framing: a [Stream] carries whole messages; [NewStdio] picks
//     newline-delimited JSON or LSP-style Content-Length framing from the first
//     bytes the client sends and answers in kind; [NewLines] reads a child's
//     newline-delimited output on the reader's own goroutine, without a copy;
//   - dispatch: a [Conn] runs one read loop over a Stream, answers requests
//     through a [Handler], correlates the responses to its own outgoing calls,
//     and implements "$/cancel_request" in both directions. Its writes are
//     pipelined: senders queue encoded messages in a bounded FIFO and one
//     writer goroutine writes them in batches. For a child process,
//     [Options].Route takes the peer's requests and notifications in the
//     order written instead, decoded in one pass, and [Options].OnEnd says
//     what the calls pending when its output ends fail with.
//
// Other transports (HTTP) implement Stream and reuse Conn above the framing.
//
// The package imports only the standard library and internal/jsonscan (the
// byte-level JSON reader of split and scanHead, itself standard library
// only). It must not import the ACP types (bridge/acp): ACP errors cross
// the boundary structurally, through an RPCError method (see [Handler]). It
// never logs; problems that have no caller to return to are reported
// through [Options].OnInternalError.
package jsonrpc
