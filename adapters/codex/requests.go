package codex

import (
	"context"
	"encoding/json"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// question is an approval the editor is being asked.
type question struct {
	cancel    context.CancelFunc
	withdrawn bool      // Codex resolved it otherwise: no answer is sent
	child     *subagent // the sub-agent asking, if not the session's thread
}

// answer is the result for the app-server's request id.
type answer struct {
	id     json.RawMessage
	result any
}

// request answers a server-to-client request of the session's thread:
// approvals go to the editor; anything else is refused.
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
	t.approve(ctx, m, ev, nil)
}

// childRequest answers a sub-agent's request: its approvals go to its
// child session, or to the session tied to its spawn call (subagent.go);
// its other questions are refused.
func (t *turn) childRequest(ctx context.Context, m *message, ev *event) {
	sa := t.sub(ev.ThreadID)
	if m.Method != rCommandApproval && m.Method != rFileApproval {
		_ = t.srv.c.ReplyError(m.ID, &rpcError{Code: -32601, Message: "not supported by acpbridge for a sub-agent: " + m.Method})
		return
	}
	if sa == nil || sa.turn == "" || ev.TurnID != sa.turn || ctx.Err() != nil {
		_ = t.srv.c.Reply(m.ID, map[string]any{"decision": "cancel"})
		return
	}
	if err := t.childState(ctx, sa, acp.SubagentRequiresAction, nil); err != nil {
		t.s.a.opts.Logger.Debug().Err(err).Msg("announcing a sub-agent's question")
	}
	t.approve(ctx, m, ev, sa)
}

// approve puts an approval to the editor: the session's, or the
// sub-agent sa's.
func (t *turn) approve(ctx context.Context, m *message, ev *event, sa *subagent) {
	a := newApproval(m.Method, ev)
	req := a.request(t.s.ID(), m.Method, ev)
	client := t.s.client
	switch {
	case sa != nil && sa.client != nil:
		req.SessionID, client = acp.SessionID(sa.thread), sa.client
	case sa != nil:
		req.ToolCall.Meta = parentMeta(sa.call)
	}
	qctx, cancel := context.WithCancel(ctx)
	t.asking[string(m.ID)] = &question{cancel: cancel, child: sa}
	// Asked off the turn's goroutine, so that the turn keeps reading: Codex
	// may withdraw the question (serverRequest/resolved) while the editor
	// has it. settle waits for the answer.
	go func() {
		resp, err := client.RequestPermission(qctx, req)
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
	if sa := q.child; sa != nil && sa.turn != "" {
		_ = t.childState(context.Background(), sa, acp.SubagentRunning, nil)
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
