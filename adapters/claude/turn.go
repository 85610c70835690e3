package claude

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// turn runs one ACP prompt against a running CLI. Everything it sends to the
// editor is sent from the goroutine that called Session.Prompt, so every
// update precedes the prompt's answer.
type turn struct {
	s   *Session
	r   *run
	ctx context.Context // the prompt's context; done means "cancel"

	result    gjson.Result // the last result frame
	sawResult bool
	authError bool // the CLI said it is not logged in
	cancelled bool // the prompt's context ended
	stopped   bool // the CLI was told to stop (interrupt, or deny+interrupt)
	over      bool
	exited    bool
	exitErr   error

	// steered holds the uuids of the steering messages written into this
	// turn and not answered yet, each with whether the CLI started running
	// it; finished is set when the turn takes no more (steer.go). Both
	// guarded by s.steerMu.
	steered  map[string]bool
	finished bool
	// asking is set while the editor is asked a permission question.
	asking atomic.Bool
}

// play sends the user message, then consumes events until the turn is over.
// On cancel it interrupts the CLI and keeps draining, so the CLI's own
// account of the aborted turn still reaches the editor; if the CLI does not
// finish within the grace period its process is stopped.
func (t *turn) play(msg userFrame) (acp.StopReason, error) {
	if err := t.r.c.send(msg); err != nil {
		if t.ctx.Err() != nil {
			return acp.StopReasonCancelled, nil
		}
		return "", t.s.died(t.r, err)
	}
	t.goLive()
	defer t.finish(true)
	done := t.ctx.Done()
	var grace, tick <-chan time.Time
	for {
		t.r.c.drain(t.s.tr, t.handle, func() bool { return t.over })
		if t.over {
			return t.outcome()
		}
		if tick == nil && t.s.tr.live.active() {
			// Running shell commands: read their output as it comes.
			ticker := time.NewTicker(livePoll)
			defer ticker.Stop()
			tick = ticker.C
		}
		select {
		case <-tick:
			t.s.tr.live.poll(t.s.tr.send)
		case <-t.r.c.notify:
		case <-done:
			done = nil
			t.cancel()
			timer := time.NewTimer(t.s.a.opts.CancelGrace)
			defer timer.Stop()
			grace = timer.C
		case <-grace:
			t.s.log.Warn().Msg("claude did not end the cancelled turn in time; stopping it")
			t.s.kill(t.r)
			t.s.tr.abandon()
			return acp.StopReasonCancelled, nil
		}
	}
}

// cancel asks the CLI to abort the turn, once.
func (t *turn) cancel() {
	t.cancelled = true
	if t.stopped {
		return
	}
	t.stopped = true
	var fields map[string]any
	if t.steeredPending() {
		// A steering message the CLI has queued would run after the
		// interrupt, as a turn nobody asked for.
		fields = map[string]any{"cancel_queued": true}
	}
	if err := t.r.c.notifyControl("interrupt", fields); err != nil {
		t.s.log.Debug().Err(err).Msg("sending interrupt")
	}
	// The interrupt stops the sub-agents the turn waits on; one in the
	// background may outlive it, and its child session is about to be
	// reported cancelled, so it is stopped too.
	for _, id := range t.s.tr.runningChildren() {
		if err := t.r.c.notifyControl("stop_task", map[string]any{"task_id": string(id)}); err != nil {
			t.s.log.Debug().Err(err).Msg("sending stop_task")
		}
	}
}

func (t *turn) handle(ev event) {
	switch {
	case ev.exit:
		t.exited, t.exitErr = true, ev.err
		t.finish(true)
	case ev.typ == "control_request":
		t.control(ev)
	case ev.typ == "result":
		t.s.tr.handle(ev)
		t.result, t.sawResult = resultFields(ev.line), true
		t.steerDone(resultUUIDs(ev.line)...)
		// A result is the end unless background work will start another
		// turn, or a steering message is still to be answered; then the
		// idle state below is. (The idle that follows a final result is
		// picked up before the next prompt.) A cancelled turn ends here
		// too unless a steering message is still to be answered (see
		// steer.go): background work running on is picked up before the
		// next prompt.
		if t.cancelled || !t.s.tr.background() || !t.r.c.sawStates() {
			t.finish(false)
		}
	case ev.typ == "system" && ev.subtype == "session_state_changed":
		// idle is the CLI's "nothing more is coming".
		if gjson.GetBytes(ev.line, "state").String() == "idle" && (t.sawResult || t.cancelled) {
			t.finish(t.cancelled)
		}
	case ev.typ == "command_lifecycle":
		// A cancelled turn whose result came while a steering message
		// waited in the queue ends when the interrupt drops the message.
		if t.steerLifecycle(ev.line) && t.cancelled && t.sawResult {
			t.finish(false)
		}
		t.s.tr.handle(ev)
	case ev.typ == "assistant":
		if gjson.GetBytes(ev.line, "error").String() == "authentication_failed" {
			t.authError = true
		}
		t.s.tr.handle(ev)
	default:
		t.s.tr.handle(ev)
	}
}

// control answers a request from the CLI. Only tool permission is
// supported; the others are refused so the CLI does not wait forever.
func (t *turn) control(ev event) {
	switch {
	case ev.subtype == "can_use_tool":
		t.permission(parseCanUseTool(ev))
		return
	case ev.subtype == "mcp_message" && t.s.efs != nil &&
		gjson.GetBytes(ev.line, "request.server_name").String() == editorFSServer:
		t.editorFS(ev)
		return
	}
	t.s.log.Debug().Str("subtype", ev.subtype).Msg("refusing claude control request")
	if t.r.c.answered(ev.reqID) {
		t.answerErr(t.r.c.respondError(ev.reqID, "unsupported request: "+ev.subtype))
	}
}

// permission asks the editor whether a tool may run. The editor's request
// is cancelled when the prompt is cancelled or the CLI withdraws its
// question (control_cancel_request).
func (t *turn) permission(req canUseTool) {
	if req.tool == "AskUserQuestion" {
		t.questions(req)
		return
	}
	child := t.s.tr.childAsking(req)
	t.s.tr.route = child // the question and its tool call are the child's
	defer func() { t.s.tr.route = "" }()
	answer, reject := t.s.autoDecision(req)
	if answer == nil {
		t.s.tr.ensureAnnounced(req.toolUseID, req.tool, req.input)
		if child != "" {
			t.s.tr.childState(child, acp.SubagentRequiresAction)
		}
		t.asking.Store(true)
		answer, reject = t.ask(req, child)
		t.asking.Store(false)
		if child != "" {
			t.s.tr.childState(child, acp.SubagentRunning)
		}
	}
	if reject {
		t.s.rememberReject(req)
	}
	if answer == nil || !t.r.c.answered(req.reqID) {
		return // withdrawn by the CLI: it wants no answer
	}
	t.answerErr(t.r.c.respond(req.reqID, answer))
	if _, allowed := answer.(allowAnswer); allowed {
		// The tool runs now: say so, so a long command no longer looks
		// like it waits for approval.
		t.s.tr.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(req.toolUseID),
			Status:     acp.Ptr(acp.ToolCallStatusInProgress),
		}})
	}
}

// ask puts the question to the editor; a nil answer means the CLI gets none:
// it withdrew the question, or the prompt was cancelled and the interrupt
// makes the CLI withdraw it. child is the child session asking, or "".
func (t *turn) ask(req canUseTool, child acp.SessionID) (answer any, rejectAlways bool) {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	defer context.AfterFunc(req.abort, cancel)()
	// The withdrawal that ends req.abort may come behind a full queue of
	// events that this turn, blocked here, does not consume.
	defer t.r.c.hold()()
	id, client := t.s.id, t.s.client
	if child != "" {
		id, client = child, t.s.childClient(child)
	}
	resp, err := client.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionID: id,
		ToolCall:  t.s.tr.askedWithParent(toolCallAsked(t.s.a.dialect, req, t.s.cwd)),
		Options:   permissionOptions(req.tool),
	})
	switch {
	case req.abort.Err() != nil:
		return nil, false
	case t.ctx.Err() != nil:
		t.cancel()
		return nil, false
	case err == nil && resp.Outcome.Selected == nil:
		// The editor withdrew the question: refuse and end the turn.
		t.cancelled, t.stopped = true, true
		return denyAnswer{Behavior: "deny", Message: "The user cancelled the tool call.", Interrupt: true}, false
	case err != nil:
		t.s.log.Warn().Err(err).Msg("asking the editor for permission")
		return denyAnswer{Behavior: "deny", Message: "The permission request failed: " + err.Error()}, false
	}
	return decide(req, string(resp.Outcome.Selected.OptionID))
}

func (t *turn) answerErr(err error) {
	if err != nil {
		t.s.log.Debug().Err(err).Msg("answering claude")
	}
}

// outcome maps how the turn ended to an ACP stop reason or error.
func (t *turn) outcome() (acp.StopReason, error) {
	if t.ctx.Err() != nil || t.s.ctx.Err() != nil {
		// Cancelled, perhaps by Close, whose stop may have been seen first.
		t.cancelled = true
	}
	if t.cancelled {
		t.s.tr.abandon()
		if t.exited {
			t.s.died(t.r, t.exitErr)
		}
		return acp.StopReasonCancelled, nil
	}
	if t.exited && !t.sawResult {
		return "", t.s.died(t.r, t.exitErr)
	}
	if t.exited {
		t.s.died(t.r, t.exitErr)
	}
	return resultOutcome(t.s.a.dialect, t.result, t.authError)
}

// resultOutcome maps a result frame: limits are stop reasons, failures are
// errors carrying the CLI's own message. A refusal is a stop reason whatever
// is_error says: Claude Code retries a refused reply once and then reports
// is_error true with stop_reason refusal, and ACP has a stop reason for
// exactly that (the CLI's explanation has already gone out as agent text).
func resultOutcome(d *Dialect, res gjson.Result, authError bool) (acp.StopReason, error) {
	if res.Get("stop_reason").String() == "refusal" {
		return acp.StopReasonRefusal, nil
	}
	switch res.Get("subtype").String() {
	case "error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries":
		return acp.StopReasonMaxTurnRequests, nil
	case "error_during_execution":
		if strings.HasPrefix(res.Get("terminal_reason").String(), "aborted") {
			return acp.StopReasonCancelled, nil
		}
		msg := joinStrings(res.Get("errors"))
		return "", acp.NewError(acp.CodeInternalError, orDefault(msg, "claude failed to run the turn"), resultData(res))
	}
	if res.Get("is_error").Bool() {
		msg := orDefault(res.Get("result").String(), "claude reported an error")
		if authError || needsLogin(msg) {
			return "", d.loginRequired(msg, resultData(res))
		}
		return "", acp.NewError(acp.CodeInternalError, msg, resultData(res))
	}
	if res.Get("stop_reason").String() == "max_tokens" {
		return acp.StopReasonMaxTokens, nil
	}
	return acp.StopReasonEndTurn, nil
}

// resultFields returns the members of a result frame that resultOutcome
// reads. The frame can repeat the whole reply (its "result" text), which
// the turn need not keep once it has streamed it; that text is kept only
// when it is an error message.
func resultFields(line []byte) gjson.Result {
	keys := []string{"subtype", "terminal_reason", "errors", "is_error", "stop_reason", "api_error_status", "api_error_type"}
	if gjson.GetBytes(line, "is_error").Bool() {
		keys = append(keys, "result")
	}
	b := []byte{'{'}
	for _, k := range keys {
		v := gjson.GetBytes(line, k)
		if !v.Exists() {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		b = append(b, v.Raw...)
	}
	return gjson.ParseBytes(append(b, '}'))
}

// needsLogin recognises the CLI's "you are not logged in" messages.
func needsLogin(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "/login") || strings.Contains(m, "not logged in") ||
		strings.Contains(m, "invalid api key")
}

// resultData is the error data: what the CLI said about the failure.
func resultData(res gjson.Result) map[string]any {
	d := map[string]any{}
	for _, k := range []string{"subtype", "terminal_reason", "api_error_status", "api_error_type"} {
		if v := res.Get(k); v.Exists() && v.Type != gjson.Null {
			d[k] = v.Value()
		}
	}
	return d
}

// exitError wraps why the CLI went away with its stderr tail.
func exitError(err error, tail string) error {
	if err == nil {
		err = errClosed
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "claude ") {
		msg = "claude exited: " + msg
	}
	if tail = strings.TrimSpace(tail); tail != "" && !strings.Contains(msg, tail) {
		msg += ": " + tail
	}
	return fmt.Errorf("%w: %s", acp.ErrInternal, msg)
}

// toolCallAsked describes the tool call a permission question is
// about. The ToolCallUpdate in a question replaces what the editor shows,
// so nothing empty may go in: ExitPlanMode, for one, is asked with an empty
// input, and sending that would wipe the plan the editor already holds.
// Title and kind come from the tool and always go in.
func toolCallAsked(d *Dialect, req canUseTool, cwd string) acp.ToolCallUpdate {
	input := gjson.ParseBytes(req.input)
	info := d.describe(req.tool, input, cwd)
	tc := acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(req.toolUseID),
		Title:      acp.Ptr(info.title),
		Kind:       acp.Ptr(info.kind),
	}
	if !input.IsObject() || len(input.Map()) == 0 {
		return tc
	}
	tc.RawInput = jsonRaw(req.input)
	if len(info.content) > 0 {
		tc.Content = info.content
	}
	if len(info.locations) > 0 {
		tc.Locations = info.locations
	}
	return tc
}
