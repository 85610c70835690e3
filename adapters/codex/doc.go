// Package codex serves ACP sessions from the Codex CLI through its richest
// native protocol, `codex app-server`: JSON-RPC 2.0, one JSON object per
// line on the child's stdin and stdout, many threads in one process.
//
// One app-server serves every session of an Adapter (one thread each): a
// thread is cheap, a process is not (Codex loads its config, plugins and
// model catalogue at start). Its process group is owned through
// adapters/internal/proc and stopped by Adapter.Close. When it dies, the
// open turns end with an error carrying the tail of its stderr, and the next
// prompt starts a new one and resumes the thread (thread/resume).
//
// Mapping (ACP ↔ app-server):
//   - session/new → thread/start (cwd, approval policy and sandbox of the
//     mode); session/prompt → turn/start; session/cancel → turn/interrupt,
//     answered "cancelled";
//   - item/agentMessage/delta → agent_message_chunk; reasoning deltas →
//     agent_thought_chunk; commandExecution items → execute tool calls with
//     live output and the exit code; fileChange items → edit, delete or move
//     tool calls with diffs and locations; turn/plan/updated → plan;
//     thread/tokenUsage/updated → usage_update;
//   - approval requests (item/commandExecution/requestApproval,
//     item/fileChange/requestApproval) → session/request_permission. Reject
//     answers "decline": Codex marks the item declined, tells the model and
//     the turn goes on (0.169 does not list decline for an escalated
//     command, but takes it). Allow-always answers acceptForSession or the
//     proposed exec-policy amendment.
//
// Parsing is split from spawning: conn reads any io.Reader, so tests feed a
// recorded app-server stream in-process (proc.InProcess).
//
// The package imports bridge/acp and adapters/internal/proc, never bridge.
package codex
