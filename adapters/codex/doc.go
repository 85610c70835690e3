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
//     proposed exec-policy amendment. A question Codex withdraws
//     (serverRequest/resolved) is withdrawn from the editor; requests for
//     more access (item/permissions/requestApproval) are granted for the
//     turn or the session, or refused; the model's questions
//     (request_user_input, offered in Codex's plan mode) are one
//     elicitation/create form when the editor offers form elicitation (a
//     choice per question, plus a free-text field where Codex allows an
//     answer of the user's own; a secret question is not masked: forms
//     have no such field), else one permission request each, and are
//     withdrawn from the editor when Codex resolves them itself;
//   - modes are Codex's approval presets (read-only, auto, full-access);
//     config options add the collaboration mode (default, plan), the model
//     and its reasoning effort (model/list), all applied from the next
//     turn/start;
//   - session/load, resume and list: thread/resume (its turns replayed)
//     and thread/list; session/delete: thread/delete (refused while another
//     connection has the thread open); session/fork (unstable):
//     thread/fork, a new thread with the history, the original unchanged;
//   - auth: initialize offers an API-key method (account/login/start with
//     CODEX_API_KEY or OPENAI_API_KEY from the bridge's environment; Codex
//     stores it) and a ChatGPT method, which only checks a `codex login`
//     done in a terminal: Codex's browser and device-code logins need a
//     URL or code shown to the user, which ACP has no message for. A Codex
//     without credentials (account/read) is answered auth-required
//     (-32000) at session open and prompt, and so is a prompt the provider
//     refuses (codexErrorInfo unauthorized, HTTP 401), with Codex's
//     message; logout is account/logout;
//   - sub-agent threads (subAgentActivity, collabAgentToolCall): child
//     sessions for an editor that takes them, else tool calls tied to the
//     spawn call by _meta (subagent.go, children.go); cancel of a child is
//     turn/interrupt of its thread;
//   - warnings and errors outside a turn are notices (session.notices),
//     never agent text; the editor's MCP servers and additional
//     directories are thread/start config overrides;
//   - a model request Codex retries (error with willRetry: "Reconnecting...
//     2/5", or "waiting for network" for ever while there is none) is a
//     warning notice with the failure as its description, or agent text of
//     its own paragraph for an editor without notices; a turn Codex gives
//     up on ends with an error naming the failure's kind and the retries.
//
// The app-server is started in the background when the bridge asks for
// Info (just before it answers initialize), so initialize does not wait
// for Codex's own start (the first session/new does, if it comes sooner).
// A spare thread is started ahead for the next session/new (spare.go), so
// session/new does not wait for thread/start either.
//
// Command output: item/commandExecution/outputDelta becomes in-progress
// tool_call_update content while the command runs. Codex 0.169 sends no
// delta for what a command prints before its start settles (its first
// line or so); that part shows with the completed update.
//
// Text deltas: Codex writes each as a line of its own. A dense stream is
// read a window at a time (window.go, 1 ms), and the deltas of a batch
// reach the editor as one chunk (turn.gather), the same text no later in a
// twentieth of the updates; with an in-process stand-in or a replay (no
// window) each delta stays a chunk of its own.
//
// Parsing is split from spawning: conn reads any io.Reader, so tests feed a
// recorded app-server stream in-process (proc.InProcess).
//
// The package imports bridge/acp and adapters/internal/proc, never bridge.
package codex
