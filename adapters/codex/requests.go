package codex

import (
	"context"
	"encoding/json"
)

// question is an approval the editor is being asked.
type question struct {
	cancel    context.CancelFunc
	withdrawn bool // Codex resolved it otherwise: no answer is sent
}

// answer is the result for the app-server's request id.
type answer struct {
	id     json.RawMessage
	result any
}

// request answers a server-to-client request: approvals go to the editor;
// anything else is refused.
func (t *turn) request(ctx context.Context, m *message, ev *event) {
	c := t.srv.c
	if m.Method == rUserInput && ev.TurnID == t.id && ctx.Err() == nil {
		t.askUser(ctx, m.ID, ev)
		return
	}
	if m.Method == rPermissions && ev.TurnID == t.id && ctx.Err() == nil {
		t.askPermissions(ctx, m.ID, ev)
		return
	}
	if m.Method != rCommandApproval && m.Method != rFileApproval {
		_ = c.ReplyError(m.ID, &rpcError{Code: -32601, Message: "not supported by acpbridge: " + m.Method})
		return
	}
	if ev.TurnID != t.id || ctx.Err() != nil {
		_ = c.Reply(m.ID, map[string]any{"decision": "cancel"})
		return
	}
	a := newApproval(m.Method, ev)
	req := a.request(t.s.ID(), m.Method, ev)
	qctx, cancel := context.WithCancel(ctx)
	t.asking[string(m.ID)] = &question{cancel: cancel}
	// Asked off the turn's goroutine, so that the turn keeps reading: Codex
	// may withdraw the question (serverRequest/resolved) while the editor
	// has it. settle waits for the answer.
	go func() {
		resp, err := t.s.client.RequestPermission(qctx, req)
		if qctx.Err() != nil {
			err = qctx.Err()
		}
		t.answers <- answer{id: m.ID, result: map[string]any{"decision": a.decision(resp, err)}}
	}()
}

// answered sends the editor's decision to Codex, unless Codex withdrew the
// question meanwhile.
func (t *turn) answered(a answer) {
	q := t.asking[string(a.id)]
	delete(t.asking, string(a.id))
	if q == nil {
		return
	}
	q.cancel()
	if !q.withdrawn {
		_ = t.srv.c.Reply(a.id, a.result)
	}
}

// withdraw ends the editor's question Codex resolved otherwise.
func (t *turn) withdraw(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if q := t.asking[string(p.RequestID)]; q != nil {
		q.withdrawn = true
		q.cancel()
	}
}

// settle withdraws the questions still open when the turn ends (each is
// answered cancel, which Codex ignores for an ended turn) and waits for
// their goroutines.
func (t *turn) settle() {
	for _, q := range t.asking {
		q.cancel()
	}
	for len(t.asking) > 0 {
		t.answered(<-t.answers)
	}
}
