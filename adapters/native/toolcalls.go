package native

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// quirkClient is the editor as the session's agent connection sees it: the
// bridge's RawClient, with the fixes that need to remember something about
// the session's tool calls (fixtures/testsupport/agentenv/QUIRKS.md):
//
//   - Gemini CLI asks permission for, and updates, tool calls no tool_call
//     announced: a tool_call (pending) is sent first, so clients that look
//     calls up by id show them.
//   - Gemini CLI sends nothing after a rejected call: the bridge sends
//     tool_call_update failed at the end of the turn unless the agent sent a
//     terminal status itself (see settle).
//   - opencode reports a call in_progress before and while its permission
//     is asked: the call is put back to pending when the question goes out,
//     in_progress is held until the answer, and exact repeats of an update
//     are dropped.
//   - Copilot CLI follows a rejection with "Info: ..." as agent text: those
//     become notice updates for editors that show them, and are dropped
//     otherwise.
//   - Qwen Code sends its unchanged available_commands_update again: a
//     list equal to the last one sent (key order aside) is dropped.
//
// Ordinary updates cost one byte search (updateKind) and no decoding.
type quirkClient struct {
	acp.RawClient
	notices bool // the editor advertised session.notices

	// afterReject is set from the permission answer to the agent's next
	// non-status update: Copilot's status lines come right after it.
	afterReject atomic.Bool

	// cfg is the session's synthesised modes or config options.
	cfg modeConfig

	mu    sync.Mutex
	calls map[callKey]*toolCall // guarded by mu
	// commands is the params of the last available_commands_update sent
	// to the editor, and commandsCanon its update in commandList's form,
	// computed when first needed; both guarded by mu.
	commands, commandsCanon []byte
}

// callKey names a tool call: its toolCallId within the session it is of,
// the session's own or one of its child sessions' (sub-agents), whose
// updates and questions name the child.
type callKey struct{ sid, id string }

// toolCall is what the bridge knows of one tool call of the session.
type toolCall struct {
	announced bool            // a tool_call for it reached the editor
	last      json.RawMessage // the last update forwarded, to drop repeats
	running   bool            // the editor was last told in_progress
	asking    bool            // a permission question is out
	held      []json.RawMessage
	owed      bool // rejected, and no terminal status seen yet
}

func newQuirkClient(rc acp.RawClient) *quirkClient {
	q := &quirkClient{RawClient: rc, calls: map[callKey]*toolCall{}}
	if c := rc.Capabilities(); c.Session != nil && c.Session.Notices != nil {
		q.notices = true
	}
	return q
}

// call returns the record of the call id of the session sid, creating
// it. mu must be held.
func (q *quirkClient) call(sid, id string) *toolCall {
	k := callKey{sid, id}
	c := q.calls[k]
	if c == nil {
		c = &toolCall{}
		q.calls[k] = c
	}
	return c
}

// NotifyRaw forwards one notification of the agent, fixed where needed.
func (q *quirkClient) NotifyRaw(ctx context.Context, method string, params json.RawMessage) error {
	if method != acp.MethodSessionUpdate {
		return q.RawClient.NotifyRaw(ctx, method, params)
	}
	switch kind := updateKind(params); string(kind) {
	case "agent_message_chunk":
		if q.afterReject.Load() {
			return q.statusLine(ctx, params)
		}
	case "tool_call", "tool_call_update":
		// Copilot CLI reports the rejected call failed before its
		// status line: the watch goes on.
		return q.toolUpdate(ctx, string(kind), params)
	case "current_mode_update", "config_option_update":
		q.afterReject.Store(false)
		if err := q.RawClient.NotifyRaw(ctx, method, params); err != nil {
			return err
		}
		if more := q.cfg.modeChanged(kind, params); more != nil {
			return q.RawClient.NotifyRaw(ctx, method, more)
		}
		return nil
	case "available_commands_update":
		q.afterReject.Store(false)
		if q.repeatedCommands(params) {
			return nil
		}
	case "usage_update", "":
	default:
		q.afterReject.Store(false)
	}
	return q.RawClient.NotifyRaw(ctx, method, params)
}

// repeatedCommands reports an available_commands_update equal to the last
// one the editor got for the session (Qwen Code repeats its list), and
// otherwise records it as that one.
func (q *quirkClient) repeatedCommands(params json.RawMessage) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.commands == nil {
		// params is the reader's buffer, valid only during this call.
		q.commands = append([]byte(nil), params...)
		return false
	}
	// Repeats are byte for byte so far: a byte comparison, not the
	// decoding (a millisecond for Qwen's list; BenchmarkQuirkClientCommands).
	if bytes.Equal(params, q.commands) {
		return true
	}
	if q.commandsCanon == nil {
		q.commandsCanon = commandList(q.commands)
	}
	canon := commandList(params)
	if canon != nil && q.commandsCanon != nil && bytes.Equal(canon, q.commandsCanon) {
		return true
	}
	q.commands, q.commandsCanon = append([]byte(nil), params...), canon
	return false
}

// toolUpdate forwards a tool_call or tool_call_update.
func (q *quirkClient) toolUpdate(ctx context.Context, kind string, params json.RawMessage) error {
	var p struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	var u struct {
		ID     string `json:"toolCallId"`
		Status string `json:"status"`
	}
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Update, &u) != nil || u.ID == "" {
		return q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
	}
	var announce json.RawMessage
	q.mu.Lock()
	c := q.call(p.SessionID, u.ID)
	switch {
	case bytes.Equal(c.last, p.Update):
		q.mu.Unlock()
		return nil // an exact repeat (opencode)
	case c.asking && u.Status == "in_progress":
		// params is the reader's buffer, valid only during this call.
		c.held = append(c.held, append(json.RawMessage(nil), params...))
		q.mu.Unlock()
		return nil
	}
	if kind == "tool_call_update" && !c.announced {
		announce = announcement(p.SessionID, p.Update)
	}
	c.announced = true
	c.last = p.Update
	if u.Status != "" {
		c.running = u.Status == "in_progress"
	}
	if u.Status == "completed" || u.Status == "failed" {
		c.owed = false
	}
	q.mu.Unlock()
	if announce != nil {
		if err := q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, announce); err != nil {
			return err
		}
	}
	return q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
}

// announcement is the tool_call update that announces the call described by
// a tool_call_update or a permission request's toolCall: its fields, status
// pending, and a title (required in a tool_call) when it has none.
func announcement(sid string, update json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(update, &fields) != nil {
		return nil
	}
	delete(fields, "sessionUpdate")
	fields["status"] = json.RawMessage(`"pending"`)
	if _, ok := fields["title"]; !ok {
		fields["title"] = fields["toolCallId"]
	}
	u, err := json.Marshal(fields)
	if err != nil {
		return nil
	}
	out, err := json.Marshal(struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}{sid, append(json.RawMessage(`{"sessionUpdate":"tool_call",`), u[1:]...)})
	if err != nil {
		return nil
	}
	return out
}

// CallRaw forwards one request of the agent. A permission question is
// prepared for (see ask) and its answer acted on (see answered).
func (q *quirkClient) CallRaw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return q.StartCallRaw(ctx, method, params)()
}

// StartCallRaw is CallRaw split as acp.RawCallStarter asks: the request is
// queued to the editor now, in its place among the agent's notifications,
// and the answer is awaited (and acted on) by the function it returns.
func (q *quirkClient) StartCallRaw(ctx context.Context, method string, params json.RawMessage) func() (json.RawMessage, error) {
	id, sid, toolCall := permissionCall(method, params)
	if id != "" {
		if err := q.ask(ctx, sid, id, toolCall); err != nil {
			return func() (json.RawMessage, error) { return nil, err }
		}
	}
	var await func() (json.RawMessage, error)
	if s, ok := q.RawClient.(acp.RawCallStarter); ok {
		await = s.StartCallRaw(ctx, method, params)
	} else {
		await = func() (json.RawMessage, error) { return q.RawClient.CallRaw(ctx, method, params) }
	}
	if id == "" {
		return await
	}
	return func() (json.RawMessage, error) {
		res, err := await()
		q.answered(ctx, sid, id, params, res, err)
		return res, err
	}
}

// permissionCall returns the tool call a session/request_permission asks
// about (its id, session and toolCall), or an empty id for any other
// request.
func permissionCall(method string, params json.RawMessage) (id, sid string, toolCall json.RawMessage) {
	if method != acp.MethodSessionRequestPermission {
		return "", "", nil
	}
	var p struct {
		SessionID string          `json:"sessionId"`
		ToolCall  json.RawMessage `json:"toolCall"`
	}
	var tc struct {
		ID string `json:"toolCallId"`
	}
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.ToolCall, &tc) != nil {
		return "", "", nil
	}
	return tc.ID, p.SessionID, p.ToolCall
}

// ask records that the editor is asked about call id, announcing the call
// first if no tool_call did, or putting it back to pending if the editor
// was told it runs.
func (q *quirkClient) ask(ctx context.Context, sid, id string, toolCall json.RawMessage) error {
	var first json.RawMessage
	q.mu.Lock()
	c := q.call(sid, id)
	c.asking = true
	switch {
	case !c.announced:
		first = announcement(sid, toolCall)
		c.announced = true
	case c.running:
		first, _ = json.Marshal(map[string]any{"sessionId": sid,
			"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "pending"}})
		c.running = false
	}
	c.last = nil
	q.mu.Unlock()
	if first == nil {
		return nil
	}
	return q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, first)
}

// answered acts on the editor's answer about call id: an allowed call's
// held in_progress updates go out; a rejected (or cancelled) call's are
// dropped, it is owed a terminal status, and the agent's status lines that
// follow are watched for.
func (q *quirkClient) answered(ctx context.Context, sid, id string, params, res json.RawMessage, err error) {
	allowed := err == nil && allowedOutcome(params, res)
	q.mu.Lock()
	c := q.call(sid, id)
	held := c.held
	c.held, c.asking = nil, false
	if !allowed {
		held = nil
		c.owed = true
	}
	q.mu.Unlock()
	if !allowed {
		q.afterReject.Store(true)
	}
	for i, h := range held {
		if i > 0 && bytes.Equal(h, held[i-1]) {
			continue
		}
		q.NotifyRaw(ctx, acp.MethodSessionUpdate, h)
	}
}

// allowedOutcome reports whether the editor's answer res to the permission
// request params chose an allow option.
func allowedOutcome(params, res json.RawMessage) bool {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	if json.Unmarshal(res, &r) != nil || r.Outcome.Outcome != "selected" || json.Unmarshal(params, &p) != nil {
		return false
	}
	for _, o := range p.Options {
		if o.OptionID == r.Outcome.OptionID {
			return strings.HasPrefix(o.Kind, "allow")
		}
	}
	return false
}

// settle ends a turn of the session sid: every rejected call the agent
// left without a terminal status (Gemini CLI) is reported failed, on the
// session it is of (sid, or a child's), so it does not stay pending in
// the editor.
func (q *quirkClient) settle(ctx context.Context, sid acp.SessionID) {
	q.afterReject.Store(false)
	q.mu.Lock()
	var owed []callKey
	for k, c := range q.calls {
		if c.owed {
			owed = append(owed, k)
		}
	}
	q.calls = map[callKey]*toolCall{}
	q.mu.Unlock()
	for _, k := range owed {
		on := k.sid
		if on == "" {
			on = string(sid)
		}
		u, _ := json.Marshal(map[string]any{"sessionId": on,
			"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": k.id, "status": "failed"}})
		q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, u)
	}
}

// statusLine forwards an agent_message_chunk that follows a rejection, as a
// notice when it is one of Copilot CLI's "Info: " / "Warning: " lines.
func (q *quirkClient) statusLine(ctx context.Context, params json.RawMessage) error {
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	json.Unmarshal(params, &p)
	severity, text := acp.NoticeSeverityInfo, ""
	switch t := p.Update.Content.Text; {
	case p.Update.Content.Type != "text":
	case strings.HasPrefix(t, "Info: "):
		text = strings.TrimPrefix(t, "Info: ")
	case strings.HasPrefix(t, "Warning: "):
		severity, text = acp.NoticeSeverityWarning, strings.TrimPrefix(t, "Warning: ")
	}
	if strings.TrimSpace(text) == "" {
		q.afterReject.Store(false)
		return q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, params)
	}
	if !q.notices {
		return nil
	}
	n, err := json.Marshal(map[string]any{"sessionId": p.SessionID, "update": map[string]any{
		"sessionUpdate": "notice", "severity": severity, "title": strings.TrimSpace(text)}})
	if err != nil {
		return err
	}
	return q.RawClient.NotifyRaw(ctx, acp.MethodSessionUpdate, n)
}
