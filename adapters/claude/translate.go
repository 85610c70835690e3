package claude

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// translator turns the CLI's stdout frames into ACP session updates. It is
// owned by whoever runs the current turn (or a history replay) and is not
// safe for concurrent use. It keeps what later frames refer back to: tool
// uses by id, which messages were already streamed, the task list.
type translator struct {
	// dialect describes the CLI's tools (Claude Code's by default).
	dialect *Dialect
	cwd     string
	log     zerolog.Logger
	emit    func(acp.SessionUpdate)

	// onMode and onModel report the CLI's own mode and model changes
	// (system/status permissionMode, system/init model); may be nil.
	onMode  func(mode string)
	onModel func(model string)
	// onCommands reports a new list of slash commands
	// (system/commands_changed); may be nil.
	onCommands func(list gjson.Result)

	tools    map[string]*toolUse
	blocks   map[int64]string   // stream index -> tool use id, for the current message
	streamed map[streamKey]bool // message parts already streamed
	last     streamKey          // the part the last chunk came from
	// unclaimed digests the text and thinking streamed since the last
	// assistant frame that claimed it, [0] text, [1] thinking. A CLI that
	// streams several blocks under one message_start but sends each block's
	// frame with an id of its own (Qwen Code) is recognised by it: a frame
	// whose id was not streamed but whose text is exactly what was, is not
	// repeated.
	unclaimed [2]textDigest
	msgID     string       // API message being streamed
	pend      pendingChunk // deltas held to go out as one chunk (mergeDelta)
	plan      taskPlan
	used      uint64               // context tokens of the last main-thread message
	bg        map[string]bool      // background tasks still running, by task id
	agents    map[string]*agentRun // sub-agents by the Agent call that runs them
	// kids shows sub-agents as child sessions (subagent.go); nil when the
	// editor did not ask for them.
	kids *childSessions
	// route is the child session of the frame being translated; "" for
	// the session's own.
	route   acp.SessionID
	meter   usageMeter // context window and cost, for usage_update
	compact compaction // the compaction running, if any
	// compaction: the editor advertised session.compaction.
	compaction bool
	// notices is how the CLI's informational messages reach the editor;
	// the zero value drops them (history replays).
	notices noticeMode
	// textOpen: agent text went out since the last paragraph, so the
	// next paragraph needs a blank line before it.
	textOpen bool
	// live tails running shell commands' output; nil for none.
	live *liveShells
	// unknown are the message types already logged as unknown.
	unknown map[string]bool
}

// toolUse is what the translator remembers of one tool use.
type toolUse struct {
	name      string
	input     []byte // compact JSON; "{}" until known
	parent    string // parent_tool_use_id (sub-agent traffic)
	announced bool   // a tool_call was sent
	finished  bool
}

func newTranslator(cwd string, log zerolog.Logger) *translator {
	return &translator{
		dialect:  Claude(),
		cwd:      cwd,
		log:      log,
		tools:    map[string]*toolUse{},
		blocks:   map[int64]string{},
		streamed: map[streamKey]bool{},
		bg:       map[string]bool{},
	}
}

// background reports whether a background task (an agent, a shell) is
// still running: the CLI will start another turn by itself when it ends.
func (t *translator) background() bool { return len(t.bg) > 0 }

// handle translates one event. Unknown types and subtypes are skipped.
func (t *translator) handle(ev event) {
	if t.kids != nil {
		parent := string(ev.delta.parent)
		if !ev.delta.ok {
			parent = gjson.GetBytes(ev.line, "parent_tool_use_id").String()
		}
		t.route = t.childOf(parent)
		defer func() { t.route = "" }()
	}
	if d := &ev.delta; d.ok {
		t.followAPIID(d.apiID)
		if len(d.text) > 0 {
			text := string(d.text)
			if d.escaped {
				text = string(appendUnescaped(nil, d.text))
			}
			t.chunk(text, d.thought, string(d.parent))
		}
		return
	}
	root := ev.root()
	if t.compact.boundary && !(ev.typ == "user" && t.compactSummary(root)) {
		t.compactDone() // no summary came
	}
	if ev.typ == "result" {
		t.compactUnfinished()
	}
	switch ev.typ {
	case "stream_event":
		t.streamEvent(root)
	case "assistant":
		t.assistant(root)
	case "user":
		t.user(root)
	case "result":
		t.usageAtResult(root)
	case "system":
		t.system(ev.subtype, root)
	case "rate_limit_event":
		t.notify(rateLimitNotice(root))
	default:
		// Forward compatibility: a type this engine does not know is
		// skipped, and said once per session, not once per line.
		if !t.unknown[ev.typ] {
			if t.unknown == nil {
				t.unknown = map[string]bool{}
			}
			t.unknown[ev.typ] = true
			t.log.Debug().Str("type", ev.typ).Msg("skipping unknown output of the CLI (said once per type)")
		}
	}
}

func (t *translator) send(u acp.SessionUpdate) {
	if t.kids != nil {
		if id := t.sessionOf(u); id != "" {
			t.kids.to(id, u)
			return
		}
	}
	if t.emit != nil {
		t.emit(u)
	}
}

// assistant handles a complete content block. Streamed text is not repeated;
// tool uses get their final input (the CLI may rewrite it after streaming).
func (t *translator) assistant(root gjson.Result) {
	t.assistantOf(root, root.Get("parent_tool_use_id").String())
}

// assistantOf handles a complete content block of the agent that the Agent
// call parent runs ("" for the session's own): a transcript's sub-agent
// entries do not name their Agent call, the file they are in does.
func (t *translator) assistantOf(root gjson.Result, parent string) {
	msg := root.Get("message")
	id := msg.Get("id").String()
	apiError := root.Get("is_api_error_message").Bool()
	// An API error's text becomes the prompt's error, except a refusal's:
	// the turn ends with stop reason refusal, so the CLI's explanation
	// (what was refused, what to try) must reach the user as text.
	refusal := apiError && msg.Get("stop_reason").String() == "refusal"
	for _, b := range msg.Get("content").Array() {
		switch b.Get("type").String() {
		case "text":
			switch {
			case refusal:
				t.paragraph(b.Get("text").String())
			case !t.claim(streamKey{id, false}, b, "text", parent) && !apiError:
				t.chunkFrom(id, b.Get("text").String(), false, parent)
			}
		case "thinking":
			if !t.claim(streamKey{id, true}, b, "thinking", parent) {
				t.chunkFrom(id, b.Get("thinking").String(), true, parent)
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			t.toolInput(b.Get("id").String(), b.Get("name").String(), b.Get("input"), parent)
		}
	}
	if parent == "" && msg.Get("model").String() != "<synthetic>" {
		t.noteUsage(msg)
	}
}

// toolStart announces a tool use as soon as its block starts streaming.
func (t *translator) toolStart(id, name string, input gjson.Result, parent string) {
	if id == "" {
		return
	}
	tu := t.tool(id, name, parent)
	if input.IsObject() && len(tu.input) == 0 {
		tu.input = compact(input.Raw)
	}
	if isPlanTool(name) {
		return
	}
	t.announce(tu, id)
}

// toolInput records a tool use's final input and refines the tool call.
func (t *translator) toolInput(id, name string, input gjson.Result, parent string) {
	if id == "" {
		return
	}
	tu := t.tool(id, name, parent)
	if input.Exists() {
		tu.input = compact(input.Raw)
	}
	if name == "Bash" && !tu.finished {
		t.live.watch(id)
	}
	switch {
	case name == "TodoWrite":
		t.send(acp.SessionUpdate{Plan: todoPlan(gjson.ParseBytes(tu.input))})
	case isPlanTool(name):
	case !tu.announced:
		t.announce(tu, id)
	default:
		info := t.dialect.describe(tu.name, gjson.ParseBytes(tu.input), t.cwd)
		t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(id),
			Title:      acp.Ptr(info.title),
			Kind:       acp.Ptr(info.kind),
			Content:    info.content,
			Locations:  info.locations,
			RawInput:   json.RawMessage(tu.input),
			Meta:       parentMeta(tu.parent, tu.name),
		}})
	}
}

// tool returns the record of a tool use, creating it.
func (t *translator) tool(id, name, parent string) *toolUse {
	tu := t.tools[id]
	if tu == nil {
		tu = &toolUse{name: name, parent: parent}
		t.tools[id] = tu
	}
	if tu.name == "" {
		tu.name = name
	}
	return tu
}

// announce sends the tool_call for a tool use, once.
func (t *translator) announce(tu *toolUse, id string) {
	if tu.announced {
		return
	}
	tu.announced = true
	input := tu.input
	if len(input) == 0 {
		input = []byte("{}")
	}
	info := t.dialect.describe(tu.name, gjson.ParseBytes(input), t.cwd)
	t.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: acp.ToolCallID(id),
		Title:      info.title,
		Kind:       info.kind,
		Status:     acp.ToolCallStatusPending,
		Content:    info.content,
		Locations:  info.locations,
		RawInput:   json.RawMessage(input),
		Meta:       parentMeta(tu.parent, tu.name),
	}})
}

// ensureAnnounced makes sure the editor knows a tool call before it is asked
// to approve it (permission questions can come without any stream events).
func (t *translator) ensureAnnounced(id, name string, input []byte) {
	tu := t.tool(id, name, "")
	if len(tu.input) == 0 || string(tu.input) == "{}" {
		tu.input = input
	}
	t.announce(tu, id)
}

// user handles tool results; plain user text (echoes, interrupt markers,
// synthetic continuations) is not shown.
func (t *translator) user(root gjson.Result) {
	var results []gjson.Result
	for _, b := range root.Get("message.content").Array() {
		if b.Get("type").String() == "tool_result" {
			results = append(results, b)
		}
	}
	for _, b := range results {
		r := toolResult{id: b.Get("tool_use_id").String(), failed: b.Get("is_error").Bool(), block: b}
		if len(results) == 1 {
			r.structured = root.Get("tool_use_result")
		}
		t.toolResult(r)
	}
}

func (t *translator) toolResult(r toolResult) {
	tu := t.tools[r.id]
	if tu == nil {
		tu = t.tool(r.id, "", "")
	}
	if tu.finished || t.agentResult(tu, r) {
		return
	}
	tu.finished = true
	t.live.finished(r.id, r.structured)
	if isPlanTool(tu.name) {
		if p := t.plan.apply(tu.name, gjson.ParseBytes(tu.input), r.structured, r.failed); p != nil {
			t.send(acp.SessionUpdate{Plan: p})
		}
		return
	}
	status := acp.ToolCallStatusCompleted
	if r.failed {
		status = acp.ToolCallStatusFailed
	}
	content, locs := t.dialect.result(tu.name, gjson.ParseBytes(tu.input), r)
	upd := &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(r.id),
		Status:     acp.Ptr(status),
		Content:    content,
		Locations:  locs,
		RawOutput:  rawOutput(r),
		Meta:       parentMeta(tu.parent, tu.name),
	}
	if tu.name == "ExitPlanMode" && !r.failed {
		upd.Title = acp.Ptr("Exited Plan Mode")
	}
	t.send(acp.SessionUpdate{ToolCallUpdate: upd})
}

// abandon fails the tool calls that never got a result (the turn was
// cancelled under them), so the editor does not show them running forever,
// and ends the child sessions still running as cancelled (the cancel
// stopped their sub-agents: turn.cancel).
func (t *translator) abandon() {
	ids := make([]string, 0, len(t.tools))
	for id, tu := range t.tools {
		if tu.announced && !tu.finished {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		tu := t.tools[id]
		tu.finished = true
		t.live.drop(id)
		t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(id),
			Status:     acp.Ptr(acp.ToolCallStatusFailed),
			Meta:       parentMeta(tu.parent, tu.name),
		}})
	}
	t.endChildren(acp.Ptr(acp.StopReasonCancelled))
}

// rawOutput is the tool's structured output when there is one, else the
// tool_result content.
func rawOutput(r toolResult) any {
	if r.structured.Exists() {
		return json.RawMessage(compact(r.structured.Raw))
	}
	if c := r.block.Get("content"); c.Exists() {
		return json.RawMessage(compact(c.Raw))
	}
	return nil
}

func (t *translator) system(subtype string, root gjson.Result) {
	switch subtype {
	case "status":
		if m := root.Get("permissionMode"); m.Exists() && t.onMode != nil {
			t.onMode(m.String())
		}
		if root.Get("status").String() == "compacting" {
			t.compactStart()
		} else if root.Get("compact_result").Exists() {
			t.compactStatus(root)
		}
	case "compact_boundary":
		t.compactBoundary(root)
	case "commands_changed":
		if t.onCommands != nil {
			t.onCommands(root.Get("commands"))
		}
	case "init":
		if m := root.Get("model").String(); m != "" && t.onModel != nil {
			t.onModel(m)
		}
	case "background_tasks_changed":
		clear(t.bg)
		for _, task := range root.Get("tasks").Array() {
			t.bg[task.Get("task_id").String()] = true
		}
	case "task_started":
		t.agentStarted(root)
		t.live.started(root.Get("tool_use_id").String(), root.Get("task_id").String(), root.Get("is_backgrounded").Bool())
		if root.Get("is_backgrounded").Bool() {
			t.bg[root.Get("task_id").String()] = true
		}
	case "task_notification":
		t.agentNotified(root)
		delete(t.bg, root.Get("task_id").String())
		t.live.taskEnded(root.Get("task_id").String(), t.send)
	case "informational":
		t.notify(informationalNotice(root))
	case "api_retry":
		t.notify(apiRetryNotice(root))
	case "task_updated":
		switch root.Get("patch.status").String() {
		case "completed", "failed", "stopped", "killed":
			delete(t.bg, root.Get("task_id").String())
			t.live.taskEnded(root.Get("task_id").String(), t.send)
		}
	default:
		t.log.Debug().Str("subtype", subtype).Msg("skipping claude system frame")
	}
}

// tokens is the context size an API usage object stands for.
func tokens(u gjson.Result) uint64 {
	return u.Get("input_tokens").Uint() + u.Get("output_tokens").Uint() +
		u.Get("cache_read_input_tokens").Uint() + u.Get("cache_creation_input_tokens").Uint()
}

// parentMeta is the _meta that ties sub-agent traffic to the tool use that
// started it and names the Claude tool, as other Claude ACP adapters do.
func parentMeta(parent, toolName string) map[string]any {
	if parent == "" && toolName == "" {
		return nil
	}
	cc := map[string]any{}
	if parent != "" {
		cc["parentToolUseId"] = parent
	}
	if toolName != "" {
		cc["toolName"] = toolName
	}
	return map[string]any{"claudeCode": cc}
}

// jsonRaw returns b as a JSON value for an any-typed field.
func jsonRaw(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}

func compact(raw string) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return []byte("null")
	}
	return b.Bytes()
}
