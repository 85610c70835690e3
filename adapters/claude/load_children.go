package claude

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

// storedChildren are the sub-agent transcripts of one stored session.
type storedChildren struct {
	files  map[string]string       // agent id -> its transcript
	byCall map[string]*storedChild // Agent call id -> the sub-agent it ran
	ends   taskEnds                // how the sub-agents ended
}

// storedChild is one sub-agent's transcript and what its meta file says.
type storedChild struct {
	id, path     string
	agentType    string
	description  string
	inBackground bool
}

// findChildren indexes the sub-agent transcripts of the session whose
// transcript is at path; a session without any has none.
func findChildren(path string) *storedChildren {
	k := &storedChildren{files: map[string]string{}, byCall: map[string]*storedChild{}, ends: taskEnds{}}
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
func (k *storedChildren) meta(id, p string) {
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
	k.byCall[m.ToolUseID] = &storedChild{id: id, path: p, agentType: m.AgentType, description: m.Description,
		inBackground: m.RequestShape == "background"}
}

// scan reads in a conversation (the session's, or a sub-agent's) how the
// sub-agents of its Agent calls ended, and ties to their call the
// transcripts whose meta file is missing (the call's result names the
// agent id).
func (k *storedChildren) scan(chain [][]byte) {
	for _, line := range chain {
		root := gjson.ParseBytes(line)
		if root.Get("type").String() != "user" {
			continue
		}
		if n, ok := notification(root); ok {
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
				k.byCall[call] = &storedChild{id: id, path: k.files[id]}
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

// taskEnds is how the sub-agents of a conversation ended, by the Agent
// call that ran each: its task status.
type taskEnds map[string]string

// final is the state the sub-agent of the Agent call ended in: idle, with
// the stop reason its end had live; with none when the conversation does
// not say how it ended (the CLI stopped first).
func (e taskEnds) final(call string) acp.SubagentState {
	return acp.SubagentState{State: acp.SubagentIdle, StopReason: endReason(e[call])}
}

// started is the task_started frame the live CLI sent when the Agent call
// (its input) started the sub-agent whose conversation is chain.
func (kid *storedChild) started(call string, input gjson.Result, chain [][]byte) gjson.Result {
	prompt := input.Get("prompt").String()
	if prompt == "" && len(chain) > 0 {
		prompt = promptText(gjson.GetBytes(chain[0], "message.content"))
	}
	raw, _ := json.Marshal(map[string]any{
		"task_id":         kid.id,
		"tool_use_id":     call,
		"description":     cmp.Or(kid.description, input.Get("description").String()),
		"subagent_type":   cmp.Or(kid.agentType, input.Get("subagent_type").String()),
		"is_backgrounded": kid.inBackground,
		"prompt":          prompt,
	})
	return gjson.ParseBytes(raw)
}
