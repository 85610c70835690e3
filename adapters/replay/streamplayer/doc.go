// Package streamplayer plays the wrapped CLI's side of a recorded native
// session (a fixture's agent script), so the bridge can drive it as if the
// real CLI were running. The replay adapter runs it in-process over io.Pipe;
// tests and cmd/dev/fakeagent run it as a child process on real pipes.
//
// # Playing a script
//
// Run plays a script held in memory; Play and PlayFile read it one step at
// a time (recording.StepReader), with one cursor that plays and one that looks
// ahead for the lines the host is to send, so memory does not grow with the
// script. The rules are the same.
//
// Run walks the script in order. A '>' step is written to stdout as one
// '\n'-terminated line. At a '<' step Run reads stdin until a line matches
// the expected step, then continues. Matching is by shape, not by bytes,
// because a live host differs from the one that was recorded:
//
//   - the "type" must be equal;
//   - for control_request, request.subtype must be equal;
//   - for control_response, response.subtype must be equal and
//     response.request_id must name the CLI's own request it answers (the id
//     as written on stdout);
//   - any user message matches a user step;
//   - for other types the type alone decides.
//
// Consecutive '<' steps form a group that may be satisfied in any order, and
// a stdin line that arrives early (while '>' lines are still being written)
// is matched against the next group ahead, so a host that answers or asks
// sooner than the recorded one did is not stalled.
//
// # Ids
//
// When a live control_request matches a recorded one, Run remembers recorded
// request_id -> live request_id and rewrites response.request_id in later
// '>' control_response lines through that map, so the host gets answers to
// the requests it actually sent. When Options.SessionID is set, every
// occurrence of Options.RecordedSessionID in a '>' line is replaced by it, so
// the stream carries the session id the host chose. When a live user
// message matches a recorded one that has a uuid (a message written into a
// running turn, _session/steering), the recorded uuid is replaced by the
// live one in later '>' lines (command_lifecycle, user_message_uuids), so
// the host learns when its own message has been answered.
//
// # Lines the script does not expect
//
//   - A control_request gets a generic success response,
//     {"type":"control_response","response":{"subtype":"success","request_id":ID,"response":{}}}.
//   - An interrupt control_request is answered with success
//     ({"still_queued":[]}). During a turn (after a user step, before the
//     turn's result) Run then ends the turn as the CLI does: a
//     control_cancel_request for each of its own requests still waiting for
//     an answer, a "[Request interrupted by user]" user frame and an
//     error_during_execution result; then it skips the script forward to the
//     next user step. Live requests the script had matched but not yet
//     answered get the generic success response, so no host call is left
//     hanging. Between turns only the response is written.
//   - A user message that the next group does not expect is queued for the
//     next user step, as the CLI queues a prompt sent during a turn.
//   - Anything else (for example a control_response to nothing) is ignored.
//
// # Answers the recording did not have
//
// By default an answer to one of the CLI's requests matches by shape, so a
// deny where the recording allowed plays on as recorded. With
// Options.StopOnOtherAnswer, an answer whose response.behavior differs from
// the recorded one (or that adds interrupt) ends the turn instead, since
// what the recording did next followed from its own answer: Run cancels
// the CLI's other open requests, writes a failed tool_result for the tool
// asked about, and then either the interrupted-turn marker and result (a
// deny with interrupt: the host cancelled) or an assistant message and a
// success result saying the recording cannot follow the choice; then it
// skips to the next user step, as after an interrupt.
//
// When the script is exhausted, each further user message is answered with
// a short assistant text saying the recording has no more turns and a
// success result, so a person driving a replay sees a clean end.
//
// Stdin EOF ends Run with nil, like the CLI exiting 0; lines already due
// before the next '<' step are still written first, as the CLI finishes its
// turn. When ctx is done Run returns ctx.Err() promptly unless it is blocked
// writing stdout (an io.Pipe nobody reads); the caller unblocks that by
// closing the pipe.
//
// Run reads stdin on a goroutine of its own. Before returning for any reason
// other than stdin EOF it closes stdin if stdin is an io.Closer, and waits
// for that goroutine; a stdin that cannot be closed may leave it blocked in
// Read until the reader returns.
//
// The package imports only the standard library and package recording.
package streamplayer
