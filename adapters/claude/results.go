package claude

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// toolResult is one tool_result block of a user frame with the tool's
// structured output (the frame's tool_use_result), when known.
type toolResult struct {
	id         string
	failed     bool
	block      gjson.Result // the tool_result content block
	structured gjson.Result // tool_use_result; may not exist
}

// resultContent is what the editor shows for a finished tool use: diffs for
// file edits, command output for Bash, the text of the result otherwise. A nil
// content leaves what the tool call already shows.
func resultContent(name string, input gjson.Result, r toolResult) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if b := builtinTool(name); b != name {
		return editorToolResult(b, r)
	}
	if r.failed {
		return genericContent(r.block.Get("content")), nil
	}
	s := r.structured
	switch name {
	case "Bash", "BashOutput":
		if s.IsObject() {
			out := strings.TrimRight(s.Get("stdout").String(), "\n")
			if e := strings.TrimRight(s.Get("stderr").String(), "\n"); e != "" {
				out = strings.TrimLeft(out+"\n"+e, "\n")
			}
			return consoleContent(out), nil
		}
		return consoleContent(blockText(r.block.Get("content"))), nil
	case "Write":
		if s.IsObject() && s.Get("filePath").String() != "" {
			var old *string
			if o := s.Get("originalFile"); o.Type == gjson.String {
				old = acp.Ptr(o.String())
			}
			p := s.Get("filePath").String()
			return diffContent(p, old, s.Get("content").String()), location(p, 0)
		}
		return nil, nil
	case "Edit", "MultiEdit":
		return editResult(s)
	case "Read":
		if c := s.Get("file.content"); c.Exists() {
			return textContent(fence(c.String(), "")), nil
		}
		return genericContent(r.block.Get("content")), nil
	case "ExitPlanMode":
		return nil, nil
	case "Task", "Agent":
		return agentReport(r), nil
	}
	return genericContent(r.block.Get("content")), nil
}

// editResult turns an Edit's structuredPatch into one diff per hunk (context
// lines included), each located at the hunk's first new line.
func editResult(s gjson.Result) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	p := s.Get("filePath").String()
	hunks := s.Get("structuredPatch").Array()
	if p == "" || len(hunks) == 0 {
		return nil, nil
	}
	var content []acp.ToolCallContent
	var locs []acp.ToolCallLocation
	for _, h := range hunks {
		var oldLines, newLines []string
		for _, l := range h.Get("lines").Array() {
			line := l.String()
			if line == "" {
				continue
			}
			switch line[0] {
			case '-':
				oldLines = append(oldLines, line[1:])
			case '+':
				newLines = append(newLines, line[1:])
			case ' ':
				oldLines = append(oldLines, line[1:])
				newLines = append(newLines, line[1:])
			}
		}
		old := strings.Join(oldLines, "\n")
		content = append(content, diffContent(p, &old, strings.Join(newLines, "\n"))...)
		locs = append(locs, location(p, max(h.Get("newStart").Int(), 1))...)
	}
	return content, locs
}

// genericContent renders a tool_result's content (a string or an array of
// text and image blocks).
func genericContent(c gjson.Result) []acp.ToolCallContent {
	if c.Type == gjson.String {
		return textContent(c.String())
	}
	var out []acp.ToolCallContent
	for _, b := range c.Array() {
		switch b.Get("type").String() {
		case "text":
			out = append(out, textContent(b.Get("text").String())...)
		case "image":
			if b.Get("source.type").String() == "base64" {
				blk := acp.ContentBlock{Image: &acp.ImageContent{
					Data:     b.Get("source.data").String(),
					MimeType: b.Get("source.media_type").String(),
				}}
				out = append(out, acp.ToolCallContent{Content: &blk})
			}
		}
	}
	return out
}

// blockText joins the text of a tool_result's content.
func blockText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var parts []string
	for _, b := range c.Array() {
		if b.Get("type").String() == "text" {
			parts = append(parts, b.Get("text").String())
		}
	}
	return strings.Join(parts, "\n")
}

func consoleContent(out string) []acp.ToolCallContent {
	if out == "" {
		return nil
	}
	return textContent(fence(out, "console"))
}

// fence wraps s in a markdown code fence longer than any backtick run in s.
func fence(s, lang string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + lang + "\n" + s + f
}
