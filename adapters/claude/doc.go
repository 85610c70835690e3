// Package claude serves ACP sessions from Claude Code, and from any
// Claude-Code-style CLI, driven over Claude Code's stream-JSON control
// protocol (claude --input-format stream-json --output-format stream-json
// --permission-prompt-tool stdio). It is the one engine for that protocol
// (acpbridge claude, and acpbridge stream-json --dialect). What differs from
// one such CLI to the next is its Dialect (dialect.go): its flags, how its
// tools are named and shown, its permission modes, where its models,
// commands and transcripts come from, and the names of its messages. Claude
// Code is the built-in dialect Claude, which the descriptions below speak
// of; Qwen Code's stream-JSON mode is the built-in dialect Qwen (qwen.go),
// and a user's TOML file is read by ParseDialect (dialectfile.go;
// BuiltinDialect and LoadDialect in builtin.go find either). A dialect
// whose transcripts the engine reads (claude) is served with load, resume,
// list, delete and fork; Adapter.Contract hides them for any other, so the
// editor is offered nothing the CLI cannot do. Claude Code's on-disk
// session storage (where a session's transcript is, its listing metadata,
// its conversation and its sub-agents' transcripts) is read by the
// subpackage transcripts; this package replays what it reads as session
// updates, through the same translator as a live turn.
//
// Each ACP session owns one CLI process, started in the background by
// NewSession with --session-id set to the ACP session id (so both sides use
// one id) and restarted with --resume when it dies. The package splits
// parsing from spawning: the session engine works over a proc.Process, so
// the same code drives the real CLI (proc.Start) and an in-process stand-in
// that replays a recorded script (proc.InProcess).
//
// One reader goroutine per process parses stdout lines with gjson. Answers
// to the host's control requests are matched by request id and a withdrawn
// permission question (control_cancel_request) cancels the editor's
// permission request at once; everything else is queued for the goroutine
// that runs the current turn, which alone sends session updates, so every
// update of a turn precedes its answer.
//
// The model's AskUserQuestion is put to the editor (an elicitation form, or
// permission questions) and answered with the user's choices (ask.go). A
// running Bash command's output is read from the file the CLI writes it to
// and sent while the command runs, by the turn's goroutine (live.go).
//
// With Options.EditorFS and an editor that can read and write files, the
// model's Read, Write and Edit are served by the bridge as tools of an
// in-process MCP server over the control protocol, through the editor's
// fs/read_text_file and fs/write_text_file, with the CLI's read-before-edit
// and modified-since-read rules kept by the bridge (editorfs.go).
//
// A turn ends when the CLI reports its session idle after a result: a
// result alone is not the end, because background agents can start another
// turn after it, and a steering message (steer.go) written into the turn
// is answered by a result of its own. Cancelling a prompt sends an interrupt and keeps draining
// until the CLI winds the turn down; a CLI that does not is stopped after a
// grace period. Either way the turn ends with stop reason "cancelled".
//
// Beyond the turn, the session keeps the editor's view of the CLI current:
// the title and time of the conversation (session_info_update, as
// session/list reads them from the transcript), the context meter and cost
// (usage_update), compactions (compaction_update, or a notice or agent text
// for editors without it), the slash commands (again when the CLI reports
// commands_changed) and the reasoning effort as a config option.
// DeleteSession removes a stored session with what the CLI keeps beside it.
//
// The package imports bridge/acp, adapters/internal/proc and its own
// transcripts, never the bridge package or another adapter: Adapter implements the contract declared in bridge/acp
// (acp.Adapter, Loader, Resumer, Lister, Deleter, asserted in adapter.go,
// and Steerer, in steer.go)
// and Session implements acp.Session.
package claude
