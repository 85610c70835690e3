// Package rpcplayer plays the agent's side of a recorded JSON-RPC session
// (a fixture's agent script, "adapter: acp" or "adapter: codex"), so the
// bridge can drive it as if the real agent process were running: a
// native-ACP CLI (Gemini CLI, Qwen Code, opencode, Copilot CLI) or
// `codex app-server`. The replay adapter runs it in-process over io.Pipe.
//
// # Playing a script
//
// Play walks the script in order. A '>' step (a line the agent wrote) is
// written to stdout as one line. At a '<' step (a line the agent read) Play
// waits until the host has sent a message that matches it. Matching is by
// shape, because a live host differs from the recorded one:
//
//   - a request or notification matches a step with the same method: the
//     next such step not matched yet, which may lie ahead (the host sent
//     sooner, or in another order, what the recorded one sent later: the
//     lines before it still play); with none ahead, the first such step of
//     the script (a second session in the same process, a prompt after
//     the recording's last turn), which is played again from there;
//   - a prompt (session/prompt, turn/start) starts its turn at once, past
//     whatever the host did not send before it;
//   - a cancel (session/cancel, turn/interrupt) matches only within the turn
//     being played, and the rest of the recorded output up to the recorded
//     cancel is not played: the host stopped it;
//   - a response matches the step answering the same one of the agent's
//     own requests (the agent's ids are written as recorded).
//
// # Ids
//
// A '>' response carries the id of the live request it answers (recorded
// request id -> live id, remembered at the match). When Options.SessionID is
// set, every occurrence of Options.RecordedSessionID in a '>' line (an ACP
// session id, a Codex thread id) is replaced by it.
//
// # Lines the script does not expect
//
// A request no step has is answered with a JSON-RPC error naming its
// method; a notification or response that matches nothing is ignored. A
// cancel between turns has nothing to stop (a request gets an empty
// result); a cancel in a turn whose recording has none ends the turn
// cancelled (Protocol.Cancelled).
//
// # Answers the recording did not have
//
// A permission answer whose kind (allow, reject or cancelled) is not the
// recorded one ends the turn instead of playing on as recorded, with the
// rules of adapters/replay: cancelled fails the tool and ends the turn
// cancelled; otherwise the tool fails with a message saying the recording
// cannot follow the editor's choice, the agent says the same, and the turn
// ends normally. The rest of the recorded turn is skipped. Allow once and
// allow always are the same answer, as are reject once and reject always.
// What a turn, a cancel and a permission answer look like is the
// protocol's (Protocol): ACP or Codex's app-server.
//
// Stdin EOF ends Play with nil, like the agent exiting 0. The script is
// held in memory: these recordings are small, and playing again from an
// earlier step needs it.
//
// The package imports only the standard library and package recording.
package rpcplayer
