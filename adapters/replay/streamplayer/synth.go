package streamplayer

import "fmt"

// The lines Run makes up itself, in the shapes the Claude CLI uses for an
// interrupted turn and for a result: the fields an adapter looks at, plus
// the usual envelope.

// abortTurn writes what the CLI writes after an interrupt ends a turn: a
// marker user frame and an error_during_execution result. tools says
// whether the turn was waiting on its own requests (a tool or a permission
// prompt) rather than streaming text.
func (p *player) abortTurn(tools bool) {
	marker, stop, reason := "[Request interrupted by user]", "null", "aborted_streaming"
	if tools {
		marker, stop, reason = "[Request interrupted by user for tool use]", `"tool_use"`, "aborted_tools"
	}
	b := append(p.scratch[:0], `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"`...)
	b = append(b, marker...)
	b = append(b, `"}]},"parent_tool_use_id":null,"session_id":`...)
	b = append(b, p.sid...)
	p.writeRaw(append(b, '}'))
	b = append(p.scratch[:0], `{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":0,"num_turns":1,"stop_reason":`...)
	b = append(b, stop...)
	b = append(b, `,"terminal_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","errors":["interrupted by the host"],"permission_denials":[],"session_id":`...)
	b = append(b, p.sid...)
	p.writeRaw(append(b, '}'))
}

const noMoreTurnsText = "This recording has no more turns."

// noMoreTurns answers a user message after the end of the script.
func (p *player) noMoreTurns() { p.say(noMoreTurnsText) }

// say writes an assistant message with text and a success result: a turn
// the recording does not have, ended by the replay itself.
func (p *player) say(text string) {
	p.endings++
	quoted := jsonString(text)
	b := append(p.scratch[:0], `{"type":"assistant","message":{"id":"msg_replay_end_`...)
	b = fmt.Appendf(b, "%d", p.endings)
	b = append(b, `","type":"message","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":`...)
	b = append(b, quoted...)
	b = append(b, `}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}},"parent_tool_use_id":null,"session_id":`...)
	b = append(b, p.sid...)
	p.writeRaw(append(b, '}'))
	b = append(p.scratch[:0], `{"type":"result","subtype":"success","is_error":false,"duration_ms":0,"duration_api_ms":0,"num_turns":1,"result":`...)
	b = append(b, quoted...)
	b = append(b, `,"stop_reason":"end_turn","terminal_reason":"completed","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"session_id":`...)
	b = append(b, p.sid...)
	p.writeRaw(append(b, '}'))
}

// controlSuccess returns a success control_response line for request id
// (raw JSON) with the given response payload. It uses p.scratch.
func (p *player) controlSuccess(id, payload string) []byte {
	b := append(p.scratch[:0], `{"type":"control_response","response":{"subtype":"success","request_id":`...)
	b = append(b, id...)
	b = append(b, `,"response":`...)
	b = append(b, payload...)
	return append(b, "}}"...)
}
