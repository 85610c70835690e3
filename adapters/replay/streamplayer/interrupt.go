package streamplayer

// Interrupts the recording did not script: the turn ends the way the CLI
// ends an interrupted one, and the player skips to the next user message.

// interrupt answers an interrupt the script does not expect. During a turn
// it ends the turn the way the CLI does (see the package doc).
func (p *player) interrupt(m *msg) error {
	id := idOrNull(m.RequestID)
	if !p.inTurn {
		p.logf("interrupt between turns: answered")
		p.writeRaw(p.controlSuccess(id, `{"still_queued":[]}`))
		return nil
	}
	tools := len(p.outstanding) > 0
	for _, rid := range p.outstanding {
		p.writeRaw(append(append(p.scratch[:0], `{"type":"control_cancel_request","request_id":`...), rid+"}"...))
	}
	p.outstanding = p.outstanding[:0]
	p.writeRaw(p.controlSuccess(id, `{"still_queued":[]}`))
	p.abortTurn(tools)
	return p.skipRestOfTurn("interrupted mid-turn")
}

// skipRestOfTurn leaves the turn the recording was in and skips what it did
// after this point, up to the next user message: the editor (an interrupt, or
// an answer the recording did not get) took the session elsewhere.
func (p *player) skipRestOfTurn(why string) error {
	p.inTurn = false
	p.answerUnanswered()
	next, err := p.nextUser()
	if err != nil {
		return err
	}
	if err := p.skipTo(next); err != nil {
		return err
	}
	p.logf("%s: skipping to script step %d", why, p.pos+1)
	return nil
}

// answerUnanswered gives a generic success to live requests whose recorded
// answer will not be played.
func (p *player) answerUnanswered() {
	for _, id := range p.unanswered {
		p.logf("answering request %s with success: its recorded answer is not played", id)
		p.writeRaw(p.controlSuccess(id, "{}"))
	}
	p.unanswered = p.unanswered[:0]
}
