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
	cwd  string
	log  zerolog.Logger
	emit func(acp.SessionUpdate)

	// onMode and onModel report the CLI's own mode and model changes
	// (system/status permissionMode, system/init model); may be nil.
	onMode  func(mode string)
	onModel func(model string)

	tools    map[string]*toolUse
	blocks   map[int64]string   // stream index -> tool use id, for the current message
	streamed map[streamKey]bool // message parts already streamed
	last     streamKey          // the part the last chunk came from
	msgID    string             // API message being streamed
	pend     pendingChunk       // deltas held to go out as one chunk (mergeDelta)
	plan     taskPlan
	used     uint64          // context tokens of the last main-thread message
	bg       map[string]bool // background tasks still running, by task id
	// notices is how the CLI's informational messages reach the editor;
	// the zero value drops them (history replays).
	notices noticeMode
	// textOpen: agent text went out since the last paragraph, so the
	// next paragraph needs a blank line before it.
	textOpen bool
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
	root := gjson.ParseBytes(ev.line)
	switch ev.typ {
	case "stream_event":
		t.streamEvent(root)
	case "assistant":
		t.assistant(root)
	case "user":
		t.user(root)
	case "result":
		t.result(root)
	case "system":
		t.system(ev.subtype, root)
	case "rate_limit_event":
		t.notify(rateLimitNotice(root))
	default:
		t.log.Debug().Str("type", ev.typ).Msg("skipping unknown claude output")
	}
}

func (t *translator) send(u acp.SessionUpdate) {
	if t.emit != nil {
		t.emit(u)
	}
}

// streamKey names the text or the thinking of one API message.
type streamKey struct {
	msgID   string
	thought bool
}

// streamEvent handles a raw API stream event: text and thinking deltas become
// chunks as they arrive, and a tool_use block start announces the tool call.
func (t *translator) streamEvent(root gjson.Result) {
	e, parent := t.streamMembers(root)
	switch e.Get("type").String() {
	case "message_start":
		t.msgID = orDefault(e.Get("message.id").String(), t.msgID)
		clear(t.blocks)
	case "content_block_start":
		cb := e.Get("content_block")
		switch cb.Get("type").String() {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			id := cb.Get("id").String()
			t.blocks[e.Get("index").Int()] = id
			t.toolStart(id, cb.Get("name").String(), cb.Get("input"), parent)
		case "text":
			t.chunk(cb.Get("text").String(), false, parent)
		case "thinking":
			t.chunk(cb.Get("thinking").String(), true, parent)
		}
	case "content_block_delta":
		if text, thought, ok := deltaText(e); ok {
			t.chunk(text, thought, parent)
		}
	}
}

// streamMembers returns a stream_event line's event and parent tool use,
// and follows its api_message_id, reading the line's members in one pass.
// Deltas usually come the faster way (scanDelta); this is the general path
// and the reference for it.
func (t *translator) streamMembers(root gjson.Result) (e gjson.Result, parent string) {
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "event":
			e = v
		case "parent_tool_use_id":
			parent = v.String()
		case "api_message_id":
			if id := v.String(); id != "" {
				t.msgID = id
			}
		}
		return true
	})
	return e, parent
}

// followAPIID is streamMembers' api_message_id for a scanned delta.
func (t *translator) followAPIID(id []byte) {
	if len(id) > 0 && string(id) != t.msgID {
		t.msgID = string(id)
	}
}

// deltaText returns the text of a text or thinking delta event.
func deltaText(e gjson.Result) (text string, thought, ok bool) {
	d := e.Get("delta")
	switch d.Get("type").String() {
	case "text_delta":
		return d.Get("text").String(), false, true
	case "thinking_delta":
		return d.Get("thinking").String(), true, true
	}
	return "", false, false
}

// pendingChunk is streamed text of one message part, from one read batch,
// not sent yet.
type pendingChunk struct {
	text   []byte
	key    streamKey
	parent string
	batch  uint64
}

// mergeDelta takes ev if it is a text or thinking delta the reader got in
// a batch (event.batch), adding its text to the pending chunk, and reports
// whether it did. Deltas the CLI wrote within one read window thus reach
// the editor as one chunk: the same text at no later a time, in a
// fraction of the updates (a fast stream gathers tens of deltas a
// millisecond, each a frame for the editor to parse). The turn flushes
// the pending chunk before any other event, and whenever it has caught up
// with the reader.
func (t *translator) mergeDelta(ev event) bool {
	d := &ev.delta
	if ev.batch == 0 || !d.ok {
		return false
	}
	t.followAPIID(d.apiID)
	p := &t.pend
	k := streamKey{t.msgID, d.thought}
	if len(p.text) > 0 && (p.batch != ev.batch || p.key != k || p.parent != string(d.parent)) {
		t.flush()
	}
	if len(d.text) == 0 {
		return true
	}
	if len(p.text) == 0 {
		p.key, p.parent, p.batch = k, string(d.parent), ev.batch
	}
	p.text = d.appendText(p.text)
	return true
}

// flush sends the pending chunk, if any.
func (t *translator) flush() {
	p := &t.pend
	if len(p.text) == 0 {
		return
	}
	t.chunkOf(p.key, string(p.text), p.parent)
	p.text = p.text[:0]
}

// chunk sends streamed text or thinking of the current message and
// remembers that it was streamed, so the full assistant frame does not
// repeat it.
func (t *translator) chunk(text string, thought bool, parent string) {
	if text == "" {
		return
	}
	t.chunkOf(streamKey{t.msgID, thought}, text, parent)
}

func (t *translator) chunkOf(k streamKey, text, parent string) {
	if k != t.last {
		t.streamed[k], t.last = true, k
	}
	t.sendChunk(text, k.thought, parent)
}

func (t *translator) sendChunk(text string, thought bool, parent string) {
	c := &acp.ContentChunk{Content: acp.TextBlock(text), Meta: parentMeta(parent, "")}
	if thought {
		t.send(acp.SessionUpdate{AgentThoughtChunk: c})
	} else {
		t.textOpen = true
		t.send(acp.SessionUpdate{AgentMessageChunk: c})
	}
}

// assistant handles a complete content block. Streamed text is not repeated;
// tool uses get their final input (the CLI may rewrite it after streaming).
func (t *translator) assistant(root gjson.Result) {
	msg := root.Get("message")
	id := msg.Get("id").String()
	parent := root.Get("parent_tool_use_id").String()
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
			case !t.streamed[streamKey{id, false}] && !apiError:
				t.sendChunk(b.Get("text").String(), false, parent)
			}
		case "thinking":
			if !t.streamed[streamKey{id, true}] {
				t.sendChunk(b.Get("thinking").String(), true, parent)
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			t.toolInput(b.Get("id").String(), b.Get("name").String(), b.Get("input"), parent)
		}
	}
	if parent == "" && msg.Get("model").String() != "<synthetic>" {
		if u := msg.Get("usage"); u.IsObject() {
			t.used = tokens(u)
		}
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
	switch {
	case name == "TodoWrite":
		t.send(acp.SessionUpdate{Plan: todoPlan(gjson.ParseBytes(tu.input))})
	case isPlanTool(name):
	case !tu.announced:
		t.announce(tu, id)
	default:
		info := describeTool(tu.name, gjson.ParseBytes(tu.input), t.cwd)
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
	info := describeTool(tu.name, gjson.ParseBytes(input), t.cwd)
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
	if tu.finished {
		return
	}
	tu.finished = true
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
	content, locs := resultContent(tu.name, gjson.ParseBytes(tu.input), r)
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
// cancelled under them), so the editor does not show them running forever.
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
		t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(id),
			Status:     acp.Ptr(acp.ToolCallStatusFailed),
			Meta:       parentMeta(tu.parent, tu.name),
		}})
	}
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

// result reports context usage and cost at the end of a CLI turn.
func (t *translator) result(root gjson.Result) {
	var size uint64
	root.Get("modelUsage").ForEach(func(_, v gjson.Result) bool {
		size = max(size, v.Get("contextWindow").Uint())
		return true
	})
	if size == 0 {
		return
	}
	used := t.used
	if used == 0 {
		used = tokens(root.Get("usage"))
	}
	u := &acp.UsageUpdate{Used: used, Size: size}
	if c := root.Get("total_cost_usd"); c.Exists() {
		u.Cost = &acp.Cost{Amount: c.Float(), Currency: "USD"}
	}
	t.send(acp.SessionUpdate{UsageUpdate: u})
}

func (t *translator) system(subtype string, root gjson.Result) {
	switch subtype {
	case "status":
		if m := root.Get("permissionMode"); m.Exists() && t.onMode != nil {
			t.onMode(m.String())
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
		if root.Get("is_backgrounded").Bool() {
			t.bg[root.Get("task_id").String()] = true
		}
	case "task_notification":
		delete(t.bg, root.Get("task_id").String())
	case "informational":
		t.notify(informationalNotice(root))
	case "api_retry":
		t.notify(apiRetryNotice(root))
	case "task_updated":
		switch root.Get("patch.status").String() {
		case "completed", "failed", "stopped", "killed":
			delete(t.bg, root.Get("task_id").String())
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
