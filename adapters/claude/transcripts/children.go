package transcripts

import (
	"cmp"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Claude Code (2.1.329) keeps each sub-agent's conversation in a file of
// its own beside the session's transcript, not in the session's file:
//
//	<project>/<session id>.jsonl                              the session
//	<project>/<session id>/subagents/agent-<agent id>.jsonl    a sub-agent
//	<project>/<session id>/subagents/agent-<agent id>.meta.json
//
// (the CLI may keep some in a folder below subagents/). Every entry of a
// sub-agent's file is a sidechain entry (isSidechain, agentId) chained by
// parentUuid like the session's, its first one the prompt. The meta file
// names the Agent call that ran it (toolUseId), its type and description,
// and whether it ran in the background (requestShape). The agent id is the
// task id of the live CLI's task_started, so a loaded child session has the
// id it had live. The session's own transcript says how each ended: a
// foreground sub-agent's Agent call result (toolUseResult.status), a
// background one's task notification (a user entry the CLI wrote).

// Children are the sub-agent transcripts of one stored session. They are
// not safe for concurrent use: one replay reads them.
type Children struct {
	files  map[string]string // agent id -> its transcript
	byCall map[string]*Child // Agent call id -> the sub-agent it ran
	ends   map[string]string // Agent call id -> its sub-agent's task status
	valid  func([]byte) bool // the Store's
}

// Child is one sub-agent's transcript and what its meta file says.
type Child struct {
	// ID is the agent id: the task id of the live CLI's task_started,
	// so a loaded child session has the id it had live.
	ID           string
	path         string
	agentType    string
	description  string
	inBackground bool
}

// Children indexes the sub-agent transcripts of the session whose
// transcript is at path; a session without any has none.
func (st Store) Children(path string) *Children {
	k := &Children{files: map[string]string{}, byCall: map[string]*Child{}, ends: map[string]string{}, valid: st.valid}
	root := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // an unreadable folder is not ours to report
		}
		name, agent := strings.CutPrefix(d.Name(), "agent-")
		id, transcript := strings.CutSuffix(name, ".jsonl")
		if agent && transcript && validSessionID(acp.SessionID(id)) {
			k.files[id] = p
		}
		return nil
	})
	for id, p := range k.files {
		k.meta(id, p)
	}
	return k
}

// meta reads the meta file of the sub-agent id, whose transcript is p.
func (k *Children) meta(id, p string) {
	raw, err := os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".meta.json")
	if err != nil {
		return
	}
	var m struct {
		ToolUseID    string `json:"toolUseId"`
		AgentType    string `json:"agentType"`
		Description  string `json:"description"`
		RequestShape string `json:"requestShape"`
	}
	if json.Unmarshal(raw, &m) != nil || m.ToolUseID == "" {
		return
	}
	k.byCall[m.ToolUseID] = &Child{ID: id, path: p, agentType: m.AgentType, description: m.Description,
		inBackground: m.RequestShape == "background"}
}

// Of returns the sub-agent that the Agent call call ran, or nil when no
// transcript of it is known.
func (k *Children) Of(call string) *Child { return k.byCall[call] }

// Scan reads in a conversation (the session's, or a sub-agent's, as
// ReadChain and Chain return them) how the sub-agents of its Agent calls
// ended, and ties to their call the transcripts whose meta file is missing
// (the call's result names the agent id).
func (k *Children) Scan(chain [][]byte) {
	for _, line := range chain {
		root := gjson.ParseBytes(line)
		if root.Get("type").String() != "user" {
			continue
		}
		if n, ok := Notification(root); ok {
			k.ends[n.Get("tool_use_id").String()] = n.Get("status").String()
			continue
		}
		results := root.Get(`message.content.#(type=="tool_result")#`).Array()
		for _, b := range results {
			call := b.Get("tool_use_id").String()
			var res gjson.Result
			if len(results) == 1 {
				res = root.Get("toolUseResult")
			}
			if id := res.Get("agentId").String(); k.byCall[call] == nil && k.files[id] != "" {
				k.byCall[call] = &Child{ID: id, path: k.files[id]}
			}
			switch status := res.Get("status").String(); {
			case status == "async_launched" || res.Get("isAsync").Bool():
			case status != "":
				k.ends[call] = status
			case b.Get("is_error").Bool():
				k.ends[call] = "failed"
			default:
				k.ends[call] = "completed"
			}
		}
	}
}

// Ends is how the sub-agents ended, by the Agent call that ran each: its
// task status (completed, failed, killed, ...), as far as the
// conversations scanned so far say. It is the Children's own map, which
// later scans add to.
func (k *Children) Ends() map[string]string { return k.ends }

// Chain reads the conversation of sub-agent kid's transcript, as ReadChain
// reads a session's.
func (k *Children) Chain(kid *Child) ([][]byte, error) {
	f, err := os.Open(kid.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSidechain(f, k.valid)
}

// Started is the task_started frame the live CLI sent when the Agent call
// call (its input) started the sub-agent kid, whose conversation is chain.
func (kid *Child) Started(call string, input gjson.Result, chain [][]byte) gjson.Result {
	prompt := input.Get("prompt").String()
	if prompt == "" && len(chain) > 0 {
		prompt = PromptText(gjson.GetBytes(chain[0], "message.content"))
	}
	raw, _ := json.Marshal(map[string]any{
		"task_id":         kid.ID,
		"tool_use_id":     call,
		"description":     cmp.Or(kid.description, input.Get("description").String()),
		"subagent_type":   cmp.Or(kid.agentType, input.Get("subagent_type").String()),
		"is_backgrounded": kid.inBackground,
		"prompt":          prompt,
	})
	return gjson.ParseBytes(raw)
}

// taskNotification opens the user message by which the CLI tells the
// model that a background task (a sub-agent, a shell) ended.
const taskNotification = "<task-notification>"

// Notification reads a stored task notification (root, a user entry) as
// the task_notification frame the live CLI sent for it: the task, its tool
// call, how it ended and its report. It reports whether the entry is one.
func Notification(root gjson.Result) (gjson.Result, bool) {
	content := root.Get("message.content")
	text := content.String()
	if content.IsArray() {
		text = content.Get("0.text").String()
	}
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, taskNotification) {
		return gjson.Result{}, false
	}
	tag := func(name string) string {
		v, _ := between(text, "<"+name+">", "</"+name+">")
		return v
	}
	report := tag("result")
	if report == "" {
		report = tag("summary")
	}
	raw, _ := json.Marshal(map[string]string{
		"task_id": tag("task-id"), "tool_use_id": tag("tool-use-id"), "status": tag("status"), "summary": report,
	})
	return gjson.ParseBytes(raw), true
}
