package claude

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// toolInfo is how one Claude tool use is shown to the editor.
type toolInfo struct {
	kind      acp.ToolKind
	title     string
	content   []acp.ToolCallContent
	locations []acp.ToolCallLocation
}

// planTools are shown as ACP plan updates instead of tool calls.
func isPlanTool(name string) bool {
	switch name {
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet":
		return true
	}
	return false
}

// describeTool maps a Claude tool use (name and input, which may still be
// empty while it streams) to its ACP kind, title, content and locations.
// Titles are short and human; paths inside cwd are shown relative to it.
func describeTool(name string, input gjson.Result, cwd string) toolInfo {
	str := func(k string) string { return input.Get(k).String() }
	switch builtinTool(name) {
	case "Task", "Agent":
		return toolInfo{kind: acp.ToolKindThink, title: orDefault(str("description"), "Task"),
			content: textContent(str("prompt"))}
	case "Bash":
		return toolInfo{kind: acp.ToolKindExecute, title: orDefault(str("command"), "Terminal"),
			content: textContent(str("description"))}
	case "BashOutput":
		return toolInfo{kind: acp.ToolKindExecute, title: "Tail Logs"}
	case "KillShell", "KillBash", "TaskStop":
		return toolInfo{kind: acp.ToolKindExecute, title: "Kill Process"}
	case "Read":
		return describeRead(input, cwd)
	case "Write":
		p := str("file_path")
		return toolInfo{kind: acp.ToolKindEdit, title: titled("Write", rel(p, cwd)),
			content: diffContent(p, nil, str("content")), locations: location(p, 0)}
	case "Edit", "MultiEdit":
		return describeEdit(input, cwd)
	case "NotebookEdit":
		p := str("notebook_path")
		return toolInfo{kind: acp.ToolKindEdit, title: titled("Edit Notebook", rel(p, cwd)),
			content: textContent(str("new_source")), locations: location(p, 0)}
	case "NotebookRead":
		p := str("notebook_path")
		return toolInfo{kind: acp.ToolKindRead, title: titled("Read Notebook", rel(p, cwd)), locations: location(p, 0)}
	case "LS":
		p := str("path")
		return toolInfo{kind: acp.ToolKindSearch, title: titled("List", quote(rel(p, cwd))), locations: location(p, 0)}
	case "Glob":
		return describeGlob(input, cwd)
	case "Grep":
		return toolInfo{kind: acp.ToolKindSearch, title: grepTitle(input, cwd), locations: location(str("path"), 0)}
	case "WebFetch":
		return toolInfo{kind: acp.ToolKindFetch, title: titled("Fetch", str("url")), content: textContent(str("prompt"))}
	case "WebSearch":
		return toolInfo{kind: acp.ToolKindFetch, title: searchTitle(input)}
	case "AskUserQuestion":
		return questionInfo(input)
	case "ExitPlanMode":
		return toolInfo{kind: acp.ToolKindSwitchMode, title: "Ready to code?", content: textContent(str("plan"))}
	case "TodoWrite":
		return toolInfo{kind: acp.ToolKindThink, title: todoTitle(input)}
	}
	if server, tool, ok := mcpName(name); ok {
		return toolInfo{kind: acp.ToolKindOther, title: tool + " (" + server + ")"}
	}
	return toolInfo{kind: acp.ToolKindOther, title: name}
}

func describeRead(input gjson.Result, cwd string) toolInfo {
	p := input.Get("file_path").String()
	offset, limit := input.Get("offset").Int(), input.Get("limit").Int()
	title := titled("Read", rel(p, cwd))
	switch {
	case p == "":
		title = "Read File"
	case limit > 0:
		start := max(offset, 1)
		title += fmt.Sprintf(" (%d - %d)", start, start+limit-1)
	case offset > 1:
		title += fmt.Sprintf(" (from line %d)", offset)
	}
	return toolInfo{kind: acp.ToolKindRead, title: title, locations: location(p, max(offset, 1))}
}

func describeEdit(input gjson.Result, cwd string) toolInfo {
	p := input.Get("file_path").String()
	info := toolInfo{kind: acp.ToolKindEdit, title: titled("Edit", rel(p, cwd)), locations: location(p, 0)}
	if edits := input.Get("edits"); edits.IsArray() {
		for _, e := range edits.Array() {
			old := e.Get("old_string").String()
			info.content = append(info.content, diffContent(p, &old, e.Get("new_string").String())...)
		}
		return info
	}
	if input.Get("old_string").Exists() || input.Get("new_string").Exists() {
		old := input.Get("old_string").String()
		info.content = diffContent(p, &old, input.Get("new_string").String())
	}
	return info
}

func describeGlob(input gjson.Result, cwd string) toolInfo {
	p, pattern := input.Get("path").String(), input.Get("pattern").String()
	title := "Find"
	if p != "" {
		title += " " + quote(rel(p, cwd))
	}
	if pattern != "" {
		title += " " + quote(pattern)
	}
	return toolInfo{kind: acp.ToolKindSearch, title: title, locations: location(p, 0)}
}

// grepTitle spells a Grep tool use as the grep command line it amounts to.
func grepTitle(input gjson.Result, cwd string) string {
	parts := []string{"grep"}
	flag := func(key, f string) {
		if input.Get(key).Bool() {
			parts = append(parts, f)
		}
	}
	flag("-i", "-i")
	flag("-n", "-n")
	for _, k := range []string{"-A", "-B", "-C"} {
		if v := input.Get(k); v.Exists() {
			parts = append(parts, k, v.String())
		}
	}
	switch input.Get("output_mode").String() {
	case "files_with_matches":
		parts = append(parts, "-l")
	case "count":
		parts = append(parts, "-c")
	}
	if g := input.Get("glob").String(); g != "" {
		parts = append(parts, "--include="+g)
	}
	if t := input.Get("type").String(); t != "" {
		parts = append(parts, "--type="+t)
	}
	flag("multiline", "-P")
	parts = append(parts, strconv.Quote(input.Get("pattern").String()))
	if p := input.Get("path").String(); p != "" {
		parts = append(parts, rel(p, cwd))
	}
	return strings.Join(parts, " ")
}

func searchTitle(input gjson.Result) string {
	title := strconv.Quote(input.Get("query").String())
	if d := joinStrings(input.Get("allowed_domains")); d != "" {
		title += " (allowed: " + d + ")"
	}
	if d := joinStrings(input.Get("blocked_domains")); d != "" {
		title += " (blocked: " + d + ")"
	}
	return title
}

func todoTitle(input gjson.Result) string {
	var items []string
	for _, t := range input.Get("todos").Array() {
		items = append(items, t.Get("content").String())
	}
	if len(items) == 0 {
		return "Update TODOs"
	}
	return "Update TODOs: " + strings.Join(items, ", ")
}

// mcpName splits "mcp__server__tool".
func mcpName(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

func joinStrings(r gjson.Result) string {
	var out []string
	for _, v := range r.Array() {
		out = append(out, v.String())
	}
	return strings.Join(out, ", ")
}

// rel shows p relative to cwd when it lies inside it.
func rel(p, cwd string) string {
	if p == "" || cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	r, err := filepath.Rel(cwd, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return p
	}
	return r
}

func titled(verb, what string) string {
	if what == "" || what == "``" {
		return verb
	}
	return verb + " " + what
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func textContent(s string) []acp.ToolCallContent {
	if s == "" {
		return nil
	}
	return []acp.ToolCallContent{acp.ToolContentText(s)}
}

func diffContent(path string, oldText *string, newText string) []acp.ToolCallContent {
	if path == "" {
		return nil
	}
	return []acp.ToolCallContent{acp.ToolContentDiff(path, oldText, newText)}
}

// location points at path (and line, when > 0).
func location(path string, line int64) []acp.ToolCallLocation {
	if path == "" {
		return nil
	}
	loc := acp.ToolCallLocation{Path: path}
	if line > 0 {
		loc.Line = acp.Ptr(uint32(line))
	}
	return []acp.ToolCallLocation{loc}
}
