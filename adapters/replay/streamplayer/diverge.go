package streamplayer

import "fmt"

// otherAnswer ends the turn after the host answered the CLI's permission
// request e.rid with another behavior than the recorded one (see
// Options.StopOnOtherAnswer): what the recording did next followed from its
// own answer, and playing it would show the editor a tool that ran, or
// did not, against its choice.
//
// A deny with interrupt (the host cancelled) ends the turn as the CLI ends
// one it was told to stop: the refusal as the tool's result, then the
// interrupted-turn marker and result. Any other difference says so, as the
// tool's (failed) result and as the agent's last words, and ends the turn
// with a success result. Either way the rest of the recorded turn is
// skipped, as after an interrupt.
func (p *player) otherAnswer(e *expect, behavior, message string, interrupt bool) error {
	tool := p.toolUses[e.rid]
	for _, rid := range p.outstanding {
		if rid == e.rid {
			continue
		}
		p.writeRaw(append(append(p.scratch[:0], `{"type":"control_cancel_request","request_id":`...), rid+"}"...))
	}
	p.outstanding = p.outstanding[:0]
	if interrupt {
		p.logf("permission %s answered %s with interrupt, recorded %s: ending the turn as interrupted", e.rid, behavior, e.behavior)
		if message == "" {
			message = "The user cancelled the tool call."
		}
		p.toolError(tool, message)
		p.abortTurn(true)
	} else {
		p.logf("permission %s answered %s, recorded %s: ending the turn", e.rid, behavior, e.behavior)
		text := fmt.Sprintf("This replay cannot follow the editor's choice: the recording %s this tool call and went on from there, so the turn ends here.", pastTense(e.behavior))
		p.toolError(tool, text)
		p.say(text)
	}
	return p.skipRestOfTurn("the editor answered otherwise")
}

func pastTense(behavior string) string {
	switch behavior {
	case "allow":
		return "allowed"
	case "deny":
		return "rejected"
	}
	return fmt.Sprintf("answered %q to", behavior)
}

// toolError writes the user frame carrying a failed tool_result for tool,
// as the CLI writes for a refused tool; nothing when tool is unknown.
func (p *player) toolError(tool, text string) {
	if tool == "" {
		return
	}
	b := append(p.scratch[:0], `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":`...)
	b = append(b, jsonString(text)...)
	b = append(b, `,"is_error":true,"tool_use_id":`...)
	b = append(b, jsonString(tool)...)
	b = append(b, `}]},"parent_tool_use_id":null,"session_id":`...)
	b = append(b, p.sid...)
	p.writeRaw(append(b, '}'))
}
