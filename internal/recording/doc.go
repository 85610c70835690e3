// Package recording owns the one recording format: it reads and writes the
// recorded sessions that `acpbridge replay` plays and the transcript tests
// drive, files named fixtures/<adapter>/<case>.txtar. The replay players
// (streamplayer, rpcplayer, and the PTY adapter's own), the PTY recorder
// and the development recorder (cmd/dev/record) all go through it.
//
// # File format
//
// One format serves every kind of agent: the meta section's "adapter" names
// the kind, and the replay (cmd/acpbridge's replay command) plays the agent
// section through that adapter. Claude Code's stream-JSON recordings live in
// fixtures/claude ("adapter: claude", played by adapters/replay/streamplayer); the
// native-ACP CLIs' in fixtures/gemini, qwen, opencode and copilot
// ("adapter: acp" and "agent: NAME") and Codex's app-server sessions in
// fixtures/codex ("adapter: codex"), both played by adapters/replay/rpcplayer. All
// are made by cmd/dev/record, from the scenarios in
// fixtures/scenarios/{claude,acp,codex}, and each names the command that re-creates
// it in its meta ("recorded") and its prose.
//
// A fixture is a txtar-style archive. Everything before the first header line
// is free prose (the comment): what the fixture shows and how it was recorded.
// Each section starts with a header line of the form
//
//	-- NAME --
//
// and runs up to the next header line or the end of the file. NAME is not
// empty and has no leading or trailing blanks; a line that looks almost like a
// header (for example "--  x --" or "-- --") is ordinary data. Parse and
// Format round-trip byte for byte whenever the input is empty or ends in a
// newline; otherwise Format adds the missing final newline. Section names are
// unique within a file.
//
// The sections a fixture uses:
//
//   - meta: lines "key: value" (adapter, agent, cli, session, cwd,
//     recorded, ...).
//     Blank lines and lines starting with '#' are skipped.
//   - agent: the wrapped CLI's side of the session, one step per line
//     (for every JSON-RPC kind too: the lines the agent read and wrote).
//     "> {json}" is a line the CLI wrote on its stdout; "< {json}" is a line
//     the CLI read on its stdin (what it expects from the host). Lines
//     starting with '#' are comments and blank lines are ignored. Every JSON
//     value must be an object; Load validates and compacts it.
//     A PTY recording (adapter: pty) holds terminal bytes in its steps:
//     {"t_ms":N,"out":"..."} drawn by the agent, {"t_ms":N,"in":"..."}
//     typed by the bridge (see adapters/pty).
//   - profile: in a PTY recording, the profile (TOML) it was made with, so
//     that it plays without the file that profile came from.
//   - editor: optional ACP messages from a synthetic editor, one JSON object
//     per line (blank lines and '#' comments skipped).
//   - want: optional ACP frames the bridge must write, as indented JSON
//     objects separated by blank lines. Load does not interpret it; the golden
//     tests compare against it and rewrite it with -update.
//
// Errors from Load and Open name the file and the line ("path:12: ...").
//
// # Loading and streaming
//
// Load reads a whole fixture into memory, as tools that edit fixtures and
// tests need. Open checks the file in one pass and keeps only the small
// sections (meta, editor); its Recording.Script then reads the agent section
// from the file one step at a time, as a StepReader, each call from the
// start. A replay of a long recording thus costs the same memory as a short
// one. SliceSteps gives the same StepReader over steps already in memory.
//
// The package imports only the standard library, so any test or tool may use
// it.
package recording
