// Package pty serves ACP sessions from interactive terminal agents (TUIs and
// line-prompt REPLs) that have no structured protocol: the agent runs on a
// pseudo-terminal, a terminal emulator keeps the screen a person would read,
// and a Profile (a TOML file) says how that screen looks when the agent is
// idle, busy or asking something, which lines are chrome, and which keys
// answer, interrupt and submit.
//
// A turn types the prompt (as a bracketed paste when the agent enabled it),
// streams the reply lines that appear below the prompt's echo as
// agent_message_chunk (or, when the profile names the agent's transcript,
// the texts the agent appends to it: exact where the screen wraps lines and
// renders markdown), turns the profile's dialogs into
// session/request_permission with the dialog's own options, and ends when
// the idle screen has been quiet for the profile's window (at once after a
// BEL). Start-up dialogs (trust this folder) are answered by the profile or,
// when it lists their options, asked of the editor; a no fails the session
// (unless the agent goes on after it). The first prompt waits for the idle
// screen to stay unchanged for the profile's start_quiet: an agent may draw
// a start-up dialog after its first idle screen.
// A cancel types the profile's interrupt and answers cancelled within
// 2 s whatever the agent does. A screen that matches nothing the profile
// knows for too long ends the turn with an error naming the profile and the
// TUI version it was written for.
//
// A Recorder (Options.Record, `acpbridge pty --record`) writes a session
// as a fixture of fixtures/pty: what the agent drew and what the bridge
// typed, with timing, and the editor's side. Replay serves such a
// recording: an in-process player acts as the agent, so a replay runs the
// same engine a live agent does (`acpbridge replay`, and the tests, which
// replay every recording of fixtures/pty and fuzz their chunking).
//
// An agent that reports its own turn boundaries (Codex's notify program,
// Claude Code's hooks) is wired by its profile's [signal] section to a unix
// socket the session owns, in a private temporary directory removed at
// Close; the reporter it runs is this program's hidden `pty-notify`
// subcommand. Its turn-complete report ends the turn at once; the screen
// stays the source of the reply text and the dialogs (signal.go).
//
// The package imports bridge/acp, adapters/internal/proc and
// internal/recording (the one recording format, which its recorder writes
// and its player reads), never bridge, another adapter or fixtures.
package pty
