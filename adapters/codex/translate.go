package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// translator turns the app-server's notifications about one turn into ACP
// session updates. It holds the running output of commands so that every
// update carries all of it (ACP replaces tool call content). It is used by
// one goroutine at a time (the turn's).
type translator struct {
	output map[string]*strings.Builder // command output by item id
}

func newTranslator() *translator { return &translator{output: map[string]*strings.Builder{}} }

// notification returns the updates for one notification; nil for those
// that have no ACP counterpart.
func (t *translator) notification(method string, ev *event) []acp.SessionUpdate {
	switch method {
	case nAgentDelta:
		return chunk(ev.Delta, false)
	case nReasoningDelta, nSummaryDelta:
		return chunk(ev.Delta, true)
	case nItemStarted:
		if ev.Item != nil {
			return t.itemStarted(ev.Item)
		}
	case nItemCompleted:
		if ev.Item != nil {
			return t.itemCompleted(ev.Item)
		}
	case nCommandOutput:
		return t.commandOutput(ev.ItemID, ev.Delta)
	case nPlanUpdated:
		return []acp.SessionUpdate{{Plan: plan(ev.Plan)}}
	case nTokenUsage:
		if u := ev.TokenUsage; u != nil && u.ModelContextWindow != nil {
			return []acp.SessionUpdate{{UsageUpdate: &acp.UsageUpdate{Used: u.Last.TotalTokens, Size: *u.ModelContextWindow}}}
		}
	}
	return nil
}

func chunk(s string, thought bool) []acp.SessionUpdate {
	if s == "" {
		return nil
	}
	c := &acp.ContentChunk{Content: acp.TextBlock(s)}
	if thought {
		return []acp.SessionUpdate{{AgentThoughtChunk: c}}
	}
	return []acp.SessionUpdate{{AgentMessageChunk: c}}
}

func plan(steps []planStep) *acp.Plan {
	p := &acp.Plan{Entries: make([]acp.PlanEntry, 0, len(steps))}
	for _, s := range steps {
		st := acp.PlanEntryStatusPending
		switch s.Status {
		case "inProgress":
			st = acp.PlanEntryStatusInProgress
		case "completed":
			st = acp.PlanEntryStatusCompleted
		}
		p.Entries = append(p.Entries, acp.PlanEntry{Content: s.Step, Priority: acp.PlanEntryPriorityMedium, Status: st})
	}
	return p
}

// toolCall is the tool_call announcing it, or nil for items that are not
// tool calls (messages, reasoning, the user's own message).
func toolCall(it *item) *acp.ToolCall {
	tc := &acp.ToolCall{ToolCallID: acp.ToolCallID(it.ID), Status: acp.ToolCallStatusPending}
	switch it.Type {
	case "commandExecution":
		tc.Title, tc.Kind = commandTitle(it), acp.ToolKindExecute
		tc.RawInput = map[string]any{"command": it.Command, "cwd": it.Cwd}
	case "fileChange":
		tc.Kind = changeKind(it.Changes)
		tc.Title = changeTitle(tc.Kind, it.Changes)
		tc.Content, tc.Locations = changeContent(it.Changes)
		tc.RawInput = map[string]any{"changes": it.Changes}
	case "mcpToolCall":
		tc.Title, tc.Kind = it.Server+": "+it.Tool, acp.ToolKindOther
		tc.RawInput = it.Arguments
	case "webSearch":
		tc.Title, tc.Kind = "Search the web: "+it.Query, acp.ToolKindFetch
		tc.RawInput = map[string]any{"query": it.Query}
	case "imageView":
		tc.Title, tc.Kind = "View "+it.Path, acp.ToolKindRead
		tc.Locations = []acp.ToolCallLocation{{Path: it.Path}}
	default:
		return nil
	}
	return tc
}

// commandTitle is the command as the model wrote it: Codex wraps it in
// "/bin/bash -lc '...'", and its parsed commandActions hold the inner
// command.
func commandTitle(it *item) string {
	if len(it.CommandActions) == 1 && it.CommandActions[0].Command != "" {
		return it.CommandActions[0].Command
	}
	return it.Command
}

func changeKind(cs []fileChange) acp.ToolKind {
	if len(cs) == 1 {
		switch {
		case cs[0].Kind.Type == "delete":
			return acp.ToolKindDelete
		case cs[0].Kind.MovePath != "":
			return acp.ToolKindMove
		}
	}
	return acp.ToolKindEdit
}

func changeTitle(kind acp.ToolKind, cs []fileChange) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = filepath.Base(c.Path)
	}
	switch kind {
	case acp.ToolKindDelete:
		return "Delete " + names[0]
	case acp.ToolKindMove:
		return "Move " + names[0] + " to " + filepath.Base(cs[0].Kind.MovePath)
	}
	return "Edit " + strings.Join(names, ", ")
}

// changeContent is one diff and one location per changed file. Codex gives
// a new file's content as its diff, and a unified diff for an update: the
// context and removed lines are the old text, the context and added lines
// the new.
func changeContent(cs []fileChange) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	var content []acp.ToolCallContent
	var locs []acp.ToolCallLocation
	for _, c := range cs {
		locs = append(locs, acp.ToolCallLocation{Path: c.Path})
		switch c.Kind.Type {
		case "add":
			content = append(content, acp.ToolContentDiff(c.Path, nil, c.Diff))
		case "delete":
			old := c.Diff
			content = append(content, acp.ToolContentDiff(c.Path, &old, ""))
		default:
			old, updated := splitUnified(c.Diff)
			path := c.Path
			if c.Kind.MovePath != "" {
				path = c.Kind.MovePath
			}
			content = append(content, acp.ToolContentDiff(path, &old, updated))
		}
	}
	return content, locs
}

// splitUnified returns the old and new side of a unified diff's hunks.
func splitUnified(diff string) (old, updated string) {
	var o, n strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"),
			strings.HasPrefix(line, `\`):
		case line[0] == '-':
			o.WriteString(line[1:])
		case line[0] == '+':
			n.WriteString(line[1:])
		case line[0] == ' ':
			o.WriteString(line[1:])
			n.WriteString(line[1:])
		}
	}
	return o.String(), n.String()
}

func (t *translator) itemStarted(it *item) []acp.SessionUpdate {
	tc := toolCall(it)
	if tc == nil {
		return nil
	}
	if it.Type == "commandExecution" || it.Type == "mcpToolCall" || it.Type == "webSearch" {
		tc.Status = acp.ToolCallStatusInProgress
	}
	return []acp.SessionUpdate{{ToolCall: tc}}
}

func (t *translator) commandOutput(id, delta string) []acp.SessionUpdate {
	b := t.output[id]
	if b == nil {
		b = new(strings.Builder)
		t.output[id] = b
	}
	b.WriteString(delta)
	st := acp.ToolCallStatusInProgress
	return []acp.SessionUpdate{{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(id), Status: &st,
		Content: []acp.ToolCallContent{acp.ToolContentText(fence(b.String()))}}}}
}

// fence shows command output verbatim in Markdown.
func fence(s string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + strings.TrimSuffix(s, "\n") + "\n" + ticks
}

func (t *translator) itemCompleted(it *item) []acp.SessionUpdate {
	if toolCall(it) == nil {
		return nil
	}
	st := acp.ToolCallStatusCompleted
	switch it.Status {
	case "failed", "declined":
		st = acp.ToolCallStatusFailed
	}
	u := &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(it.ID), Status: &st}
	switch it.Type {
	case "commandExecution":
		delete(t.output, it.ID)
		out := ""
		if it.AggregatedOutput != nil {
			out = *it.AggregatedOutput
		}
		if it.ExitCode != nil && *it.ExitCode != 0 {
			st = acp.ToolCallStatusFailed
		}
		raw := map[string]any{"output": out, "exitCode": it.ExitCode, "status": it.Status}
		u.RawOutput = raw
		text := out
		if it.Status == "declined" {
			text = "The command was declined."
		} else if it.ExitCode != nil {
			text = fence(out) + fmt.Sprintf("\n\nExit code %d", *it.ExitCode)
		}
		u.Content = []acp.ToolCallContent{acp.ToolContentText(text)}
	case "fileChange":
		if it.Status == "declined" {
			u.Content = []acp.ToolCallContent{acp.ToolContentText("The change was declined.")}
		}
	case "mcpToolCall":
		if len(it.Result) > 0 {
			u.RawOutput = json.RawMessage(it.Result)
		}
	}
	return []acp.SessionUpdate{{ToolCallUpdate: u}}
}
