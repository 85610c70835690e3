// Package native serves agents that speak ACP themselves (gemini --acp,
// qwen --acp, opencode acp, copilot --acp, and any other): the bridge sits
// between the editor and the agent and passes frames through.
//
// # Design
//
// The typed part of the adapter contract (bridge/acp's Adapter and Session)
// decodes every request into the structs of bridge/acp, which would lose
// what a native agent sends beyond them: unknown fields, _meta, extension
// methods, agent-to-client requests the bridge does not model. So this
// adapter implements two more optional interfaces of the same contract:
// acp.Initializer (its initialize answer is the agent's) and acp.Forwarder
// (its sessions are acp.RawSessions). The Server still owns what it adds
// for every adapter (framing detection, size limits, bad-input errors,
// --trace, HTTP serving, the session table, one turn at a time, preempted
// cancel, every update of a turn before its answer), and hands the rest
// over with params unchanged; answers come back unchanged.
//
// Processes: the initialize handshake starts the agent once with the editor's
// initialize params, to learn its capabilities. That process stays up,
// serving no session, and the editor's first session takes it over when it
// opens in the directory the process runs in (the bridge's: an agent reads
// its project's settings where it starts), with the editor's initialize
// params and login: session/new then waits for no second agent start,
// which costs seconds for Qwen Code and opencode. Every other session runs
// in an agent process started for it. A process a session has taken is the
// session's alone, in its own process group (adapters/internal/proc):
// stopping one session's agent (close, an ignored cancel, a crash) touches
// no other session. Requests that name no session (session/list,
// authenticate, extension methods) run in a control agent that serves no
// session, one per login, started when the first arrives: under acpbridge
// serve, one HTTP client's authenticate never answers another's
// session/list. A session may take over a control agent too. At most
// Options.MaxIdleFree agents serving no session wait idle (the least
// recently used is stopped first, never the one from initialize), and one
// idle for Options.FreeIdleTimeout is stopped, the one from initialize
// too; one with a request under way is never stopped.
//
// Capabilities: the editor is offered what the agent advertised, plus
// sessionCapabilities.close, which the bridge serves itself by stopping the
// session's agent.
// session/fork (unstable) is forwarded with the agent's own capability,
// unchanged both ways; the fork is a new session in an agent process of its
// own, whose agent forks the session it has stored.
//
// Ids: session ids are the agent's, one to one. Request ids are remapped only
// where the bridge sends requests: to the agent (each process has its own id
// space) and to the editor (the agent's requests are re-sent on the editor
// connection, which many sessions share); the answer goes back under the
// agent's own id. Notifications pass both ways, unknown ones included.
//
// Order: the editor gets the agent's frames in the order the agent wrote
// them. The agent's requests are queued to the editor where the agent's
// output is read, and only the wait for the editor's answer runs apart, so
// a session/update written after a session/request_permission cannot
// overtake it and the stream never waits for the answer.
//
// Login: each session's agent is authenticated as the editor of the
// session's own connection last authenticated; under acpbridge serve, one
// HTTP client's login never reaches another's sessions.
//
// Cancel: session/cancel reaches the agent as soon as the editor sends it
// (the bridge preempts it). If the agent has not answered the prompt within
// Options.CancelGrace, the agent is killed, its output is drained, and the
// bridge answers "cancelled": nothing of the turn follows the answer. A
// session/cancel with no turn running reaches the agent too (ACP's cancel
// is for the session's ongoing operations, whatever they are), written off
// the editor's read loop and ahead of what the session is sent next.
//
// Death: when the agent exits, every open request to it is answered with an
// error naming the agent, its exit status and the tail of its stderr. The
// session's next request restarts the agent and re-attaches the session with
// session/resume or session/load, whichever the agent advertised (the history
// a load replays is not forwarded again: the editor has it); an agent with
// neither gets an error saying to open a new session.
//
// Quirks: fixtures/testsupport/agentenv/QUIRKS.md records what each real CLI gets wrong;
// the bridge fixes what a client trips on, and passes the rest through:
//   - quirks.go: agent-to-client methods that are neither ACP nor
//     underscore-prefixed extensions (Qwen Code's craft/drainMidTurnQueue
//     and qwen/notify/...) never reach the editor (requests are answered
//     method-not-found, notifications dropped); empty text chunks (Qwen
//     Code) are dropped; a cancelled answer's all-zero usage (opencode) is
//     dropped; Gemini CLI is not offered session/load, which destroys the
//     session it loads (an explicit load is refused, and a dead agent's
//     session is not re-attached by it).
//   - toolcalls.go, a RawClient in front of the editor: a tool call first
//     seen in a permission request or update (Gemini CLI) is announced
//     with a pending tool_call; a rejected call left open (Gemini CLI) is
//     reported failed before the turn's answer; a call reported
//     in_progress before its permission is answered (opencode) is put back
//     to pending and its in_progress held until then, exact repeats
//     dropped; "Info: "/"Warning: " text right after a rejection (Copilot
//     CLI) becomes a notice, or is dropped for editors without notices;
//     an available_commands_update equal to the session's last one (Qwen
//     Code) is dropped.
//   - modes.go: configOptions are synthesised from modes and models
//     (Gemini CLI), served with session/set_mode and session/set_model and
//     kept in step with current_mode_update; modes are synthesised from a
//     mode config option (Copilot CLI) and set_mode served with
//     set_config_option.
//   - session/cancel reaches the agent with the editor's params, _meta
//     included (bridge/acp.CancelCause).
//   - Updates sent before the answer that opens their session (Copilot's
//     available_commands_update) are held by the bridge and written right
//     after it.
//
// The hot path stays byte-level: an update is classified by one search for
// its sessionUpdate discriminator and decoded only when it is a kind a
// fix looks at.
//
// This package imports bridge/acp, adapters/internal/proc,
// adapters/internal/rpcchild (the JSON-RPC client over the agent's stdio,
// shared with the Codex adapter) and internal/jsonrpc (the engine under
// it), never bridge.
package native
