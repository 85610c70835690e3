package rpcplayer

import (
	"fmt"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// handle matches one line from the host against the script.
func (p *player) handle(line []byte) error {
	m, ok := parse(line)
	switch {
	case !ok:
		p.logf("ignoring a line that is not JSON-RPC: %.80s", line)
		return nil
	case m.isResponse():
		return p.answered(m)
	case m.Method != "":
		return p.asked(m)
	}
	p.logf("ignoring %.80s", line)
	return nil
}

// asked matches a host request or notification by method. A step ahead
// that is not matched yet is taken where it stands: the lines before it
// still play, since a host may send sooner (or in another order) what the
// recorded one sent later. A prompt, though, starts its turn at once, past
// anything the host did not send before it. With no such step ahead, the
// first one of the script is played again from there.
func (p *player) asked(m message) error {
	same := func(s step) bool {
		return s.dir == recording.ToAgent && s.msg.Method == m.Method && s.msg.isRequest() == m.isRequest()
	}
	if p.opts.Protocol.Cancel(m) {
		return p.cancel(m, same)
	}
	if i := p.find(p.pos, len(p.steps), func(s step) bool { return same(s) && !p.early[s.index] }); i >= 0 {
		p.bind(m, i)
		if p.opts.Protocol.Prompt(m.Method) {
			p.pos = i + 1
		} else {
			p.take(i)
		}
		return nil
	}
	if i := p.find(0, len(p.steps), same); i >= 0 {
		clear(p.early)
		p.bind(m, i)
		p.pos = i + 1
		return nil
	}
	if !m.isRequest() {
		p.logf("ignoring %s: the recording has none", m.Method)
		return nil
	}
	p.logf("answering %s with an error: the recording has none", m.Method)
	return p.write(mustJSON(map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"error": map[string]any{"code": -32601, "message": fmt.Sprintf("this recording has no %s request", m.Method)}}))
}

// bind remembers what the recorded request of step i is live: its id, and
// the turn it starts.
func (p *player) bind(m message, i int) {
	rec := p.steps[i].msg
	if m.isRequest() {
		p.live[idKey(rec.ID)] = m.ID
		if p.opts.Protocol.Prompt(m.Method) {
			p.turn = &turn{start: rec, live: m.ID}
		}
	}
}

// take marks '<' step i as received: the cursor passes it, now or when it
// gets there.
func (p *player) take(i int) {
	if i == p.pos {
		p.pos++
		return
	}
	p.early[i] = true
}

// cancel matches a cancel within the turn being played; the recording's
// cancel of another turn never does. Between turns a cancel has nothing to
// stop (a request gets an empty result).
func (p *player) cancel(m message, same func(step) bool) error {
	if p.turn == nil {
		if m.isRequest() {
			return p.write(mustJSON(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}}))
		}
		return nil
	}
	i := p.find(p.pos, p.turnEnd(), same)
	if i < 0 {
		return p.cancelled(m)
	}
	// The rest of the recorded output up to the recorded cancel is not
	// played: the host stopped it.
	p.bind(m, i)
	p.pos = i + 1
	return nil
}

// answered matches the host's answer to one of the agent's requests, and
// ends the turn when a permission answer is not the recorded one.
func (p *player) answered(m message) error {
	ask, ok := p.asks[idKey(m.ID)]
	if !ok {
		p.logf("ignoring an answer to no open request (id %s)", m.ID)
		return nil
	}
	delete(p.asks, idKey(m.ID))
	i := p.find(p.pos, len(p.steps), func(s step) bool {
		return s.dir == recording.ToAgent && s.msg.isResponse() && idKey(s.msg.ID) == idKey(m.ID) && !p.early[s.index]
	})
	if i < 0 {
		return nil
	}
	if pr := p.opts.Protocol; pr.Ask(ask) && p.turn != nil {
		recorded, got := pr.Answer(ask, p.steps[i].msg), pr.Answer(ask, m)
		if recorded != "" && got != "" && recorded != got {
			return p.otherAnswer(ask, recorded, got)
		}
	}
	p.take(i)
	return nil
}

// otherAnswer ends the turn the editor answered otherwise than recorded.
func (p *player) otherAnswer(ask message, recorded, got string) error {
	p.logf("permission %s answered %s, recorded %s: ending the turn", ask.ID, got, recorded)
	text := fmt.Sprintf("This replay cannot follow the editor's choice: the recording %s this tool call and went on from there, so the turn ends here.", pastTense(recorded))
	lines := p.opts.Protocol.EndTurn(ask, p.turn.start, p.turn.live, got == answerCancelled, text)
	return p.endTurn(lines)
}

// cancelled ends the turn a host cancels where the recording has no cancel.
func (p *player) cancelled(m message) error {
	p.logf("%s where the recording has none: ending the turn", m.Method)
	return p.endTurn(p.opts.Protocol.Cancelled(m, p.turn.start, p.turn.live))
}

// endTurn writes lines and skips the rest of the recorded turn.
func (p *player) endTurn(lines [][]byte) error {
	for _, l := range lines {
		if err := p.write(l); err != nil {
			return err
		}
	}
	p.pos = min(p.turnEnd()+1, len(p.steps))
	p.turn = nil
	clear(p.early)
	clear(p.asks)
	return nil
}

// turnEnd is the index of the step that ends the turn being played, or
// len(steps) between turns or when the script has none.
func (p *player) turnEnd() int {
	if p.turn == nil {
		return len(p.steps)
	}
	i := p.find(p.pos, len(p.steps), func(s step) bool {
		return s.dir == recording.FromAgent && p.opts.Protocol.TurnEnd(s.msg, p.turn.start)
	})
	if i < 0 {
		return len(p.steps)
	}
	return i
}

// find returns the index of the first step in [from, to) that ok accepts,
// or -1.
func (p *player) find(from, to int, ok func(step) bool) int {
	for i := from; i < to && i < len(p.steps); i++ {
		if ok(p.steps[i]) {
			return i
		}
	}
	return -1
}

func pastTense(answer string) string {
	switch answer {
	case answerAllow:
		return "allowed"
	case answerReject:
		return "rejected"
	}
	return "answered"
}
