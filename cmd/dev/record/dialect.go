package main

import (
	"context"
	"encoding/json"
	"fmt"
)

// dialect is how the host speaks to one kind of JSON-RPC agent: the same
// host actions as for Claude Code (scenario.go), in the agent's protocol.
type dialect interface {
	// open initializes the agent and opens a session in cwd; it returns
	// the session's (or thread's) id.
	open(ctx context.Context, h *rpcHost, cwd string) (string, error)
	// prompt starts a turn.
	prompt(ctx context.Context, h *rpcHost, text string) error
	// turnEnd waits for the turn's end.
	turnEnd(ctx context.Context, h *rpcHost) error
	// permission waits for a permission question and answers it (allow,
	// allow_always or deny).
	permission(ctx context.Context, h *rpcHost, behavior string) error
	// interrupt cancels the turn.
	interrupt(ctx context.Context, h *rpcHost) error
}

// acpDialect is the Agent Client Protocol v1, client side.
type acpDialect struct {
	session string
	turn    <-chan rpcLine // the running session/prompt's answer
	asked   int            // lines before this index hold no unanswered question
}

func (d *acpDialect) open(ctx context.Context, h *rpcHost, cwd string) (string, error) {
	ch, err := h.start(true, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]any{"name": "acpbridge-record", "version": "1"}})
	if err != nil {
		return "", err
	}
	if _, err := await(ctx, ch, "initialize"); err != nil {
		return "", err
	}
	if ch, err = h.start(true, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}); err != nil {
		return "", err
	}
	m, err := await(ctx, ch, "session/new")
	if err != nil {
		return "", err
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(m.Result, &res) != nil || res.SessionID == "" {
		return "", fmt.Errorf("session/new answered no sessionId: %s", m.Result)
	}
	d.session = res.SessionID
	return d.session, nil
}

func (d *acpDialect) prompt(_ context.Context, h *rpcHost, text string) error {
	d.asked = h.mark()
	var err error
	d.turn, err = h.start(true, "session/prompt", map[string]any{"sessionId": d.session,
		"prompt": []any{map[string]any{"type": "text", "text": text}}})
	return err
}

func (d *acpDialect) turnEnd(ctx context.Context, h *rpcHost) error {
	if d.turn == nil {
		return fmt.Errorf("no turn is running")
	}
	_, err := await(ctx, d.turn, "the session/prompt answer")
	d.turn = nil
	return err
}

func (d *acpDialect) permission(ctx context.Context, h *rpcHost, behavior string) error {
	m, next, err := h.waitFor(ctx, d.asked, "session/request_permission", func(m rpcLine) bool {
		return m.Method == "session/request_permission" && len(m.ID) > 0
	})
	if err != nil {
		return err
	}
	d.asked = next
	want := map[string]string{"allow": "allow_once", "allow_always": "allow_always", "deny": "reject_once"}[behavior]
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(m.Params, &p)
	for _, o := range p.Options {
		if o.Kind == want {
			return h.send(map[string]any{"jsonrpc": "2.0", "id": m.ID,
				"result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}})
		}
	}
	return fmt.Errorf("the permission request offers no %s option: %s", want, m.Params)
}

func (d *acpDialect) interrupt(_ context.Context, h *rpcHost) error {
	return h.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": d.session}})
}

// codexDialect is `codex app-server`'s protocol, client side, sending what
// adapters/codex sends so that a replay through it meets the same messages.
type codexDialect struct {
	thread, turnID string
	from           int // the running turn's first line
	asked          int
}

func (d *codexDialect) call(ctx context.Context, h *rpcHost, method string, params any) (rpcLine, error) {
	ch, err := h.start(false, method, params)
	if err != nil {
		return rpcLine{}, err
	}
	return await(ctx, ch, method)
}

func (d *codexDialect) open(ctx context.Context, h *rpcHost, cwd string) (string, error) {
	if _, err := d.call(ctx, h, "initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "acpbridge", "title": "acpbridge", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true}}); err != nil {
		return "", err
	}
	if err := h.send(map[string]any{"method": "initialized"}); err != nil {
		return "", err
	}
	if _, err := d.call(ctx, h, "account/read", map[string]any{}); err != nil {
		return "", err
	}
	m, err := d.call(ctx, h, "thread/start", map[string]any{"cwd": cwd, "approvalPolicy": "on-request", "sandbox": "workspace-write"})
	if err != nil {
		return "", err
	}
	// adapters/codex reads the models once a thread is open.
	if _, err := d.call(ctx, h, "model/list", map[string]any{}); err != nil {
		return "", err
	}
	var res struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if json.Unmarshal(m.Result, &res) != nil || res.Thread.ID == "" {
		return "", fmt.Errorf("thread/start answered no thread id: %s", m.Result)
	}
	d.thread = res.Thread.ID
	return d.thread, nil
}

func (d *codexDialect) prompt(ctx context.Context, h *rpcHost, text string) error {
	d.from = h.mark()
	d.asked = d.from
	m, err := d.call(ctx, h, "turn/start", map[string]any{"threadId": d.thread,
		"input": []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}})
	if err != nil {
		return err
	}
	var res struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(m.Result, &res)
	d.turnID = res.Turn.ID
	return nil
}

// turnEnd waits for the end of the thread's turn; a sub-agent's thread
// ends turns of its own.
func (d *codexDialect) turnEnd(ctx context.Context, h *rpcHost) error {
	_, _, err := h.waitFor(ctx, d.from, "turn/completed", func(m rpcLine) bool {
		var p struct {
			ThreadID string `json:"threadId"`
		}
		return m.Method == "turn/completed" && json.Unmarshal(m.Params, &p) == nil && p.ThreadID == d.thread
	})
	return err
}

func (d *codexDialect) permission(ctx context.Context, h *rpcHost, behavior string) error {
	m, next, err := h.waitFor(ctx, d.asked, "an approval request", func(m rpcLine) bool {
		return len(m.ID) > 0 && (m.Method == "item/commandExecution/requestApproval" || m.Method == "item/fileChange/requestApproval")
	})
	if err != nil {
		return err
	}
	d.asked = next
	decision := map[string]string{"allow": "accept", "allow_always": "acceptForSession", "deny": "decline"}[behavior]
	return h.send(map[string]any{"id": m.ID, "result": map[string]any{"decision": decision}})
}

func (d *codexDialect) interrupt(ctx context.Context, h *rpcHost) error {
	_, err := d.call(ctx, h, "turn/interrupt", map[string]any{"threadId": d.thread, "turnId": d.turnID})
	return err
}
