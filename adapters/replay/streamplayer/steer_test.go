package streamplayer

import "testing"

// TestSteeredMessageTakesTheLiveUUID: a user message the host writes into
// the turn matches the recorded steered one, and what the CLI wrote about
// it names the live uuid, which the host waits for; a user step without a
// uuid leaves lines alone.
func TestSteeredMessageTakesTheLiveUUID(t *testing.T) {
	script := `
< ` + initReq + `
> ` + initResp + `
< ` + userMsg + `
> {"type":"assistant","message":{"content":[{"type":"text","text":"slowly"}]}}
< {"type":"user","message":{"role":"user","content":[{"type":"text","text":"steer"}]},"uuid":"rec-uuid","priority":"now"}
> {"type":"command_lifecycle","command_uuid":"rec-uuid","state":"queued","uuid":"rec-other"}
> {"type":"result","subtype":"success","user_message_uuids":["rec-uuid"]}
`
	h := startHost(t, t.Context(), script, Options{})
	h.send(`{"type":"control_request","request_id":"c1","request":{"subtype":"initialize"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"c1","response":{"commands":[]}}}`)
	h.send(`{"type":"user","message":{"role":"user","content":"go"},"session_id":""}`)
	h.recv(`{"type":"assistant","message":{"content":[{"type":"text","text":"slowly"}]}}`)
	h.send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"turn left"}]},"uuid":"live-uuid","priority":"now"}`)
	h.recv(`{"type":"command_lifecycle","command_uuid":"live-uuid","state":"queued","uuid":"rec-other"}`)
	h.recv(`{"type":"result","subtype":"success","user_message_uuids":["live-uuid"]}`)
	h.end(nil)
}
