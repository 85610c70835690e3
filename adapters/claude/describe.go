package claude

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// describe maps a tool use of the dialect's CLI to its ACP kind, title,
// content and locations: by the dialect's tool table first, then by
// Claude Code's own tools when the dialect has them, else as kind other
// titled with the tool's name (the raw input goes beside it either way).
func (d *Dialect) describe(name string, input gjson.Result, cwd string) toolInfo {
	if tl, ok := d.Tools[name]; ok {
		return tl.describe(name, input, cwd)
	}
	if d.BuiltinTools == "claude" {
		return describeTool(name, input, cwd)
	}
	return toolInfo{kind: acp.ToolKindOther, title: name}
}

// result is what the editor shows for a finished tool use (see
// resultContent for Claude Code's tools).
func (d *Dialect) result(name string, input gjson.Result, r toolResult) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	tl, ok := d.Tools[name]
	switch {
	case !ok && d.BuiltinTools == "claude":
		return resultContent(name, input, r)
	case !ok:
		return genericContent(r.block.Get("content")), nil
	}
	if r.failed {
		return genericContent(r.block.Get("content")), nil
	}
	switch tl.Output {
	case "none":
		return nil, nil
	case "console":
		return consoleContent(strings.TrimRight(blockText(r.block.Get("content")), "\n")), nil
	}
	return genericContent(r.block.Get("content")), nil
}

// describe applies one entry of a dialect's tool table.
func (tl Tool) describe(name string, input gjson.Result, cwd string) toolInfo {
	str := func(k string) string {
		if k == "" {
			return ""
		}
		return input.Get(k).String()
	}
	p := str(tl.Path)
	info := toolInfo{kind: acp.ToolKind(orDefault(tl.Kind, string(acp.ToolKindOther))),
		title: orDefault(expandTitle(orDefault(tl.Title, name), input, cwd), name), locations: location(p, input.Get(tl.Line).Int())}
	if tl.Line == "" {
		info.locations = location(p, 0)
	}
	switch {
	case tl.DiffNew != "" && p != "" && input.Get(tl.DiffNew).Exists():
		var old *string
		if o := input.Get(tl.DiffOld); tl.DiffOld != "" && o.Exists() {
			old = acp.Ptr(o.String())
		}
		info.content = diffContent(p, old, str(tl.DiffNew))
	case tl.Content != "":
		info.content = textContent(str(tl.Content))
	}
	return info
}

// expandTitle replaces each "{field}" of a title with that input member;
// a path inside cwd is shown relative to it. While the input still
// streams, a title whose members are all missing falls back to its text
// before the first "{".
func expandTitle(title string, input gjson.Result, cwd string) string {
	var b strings.Builder
	rest, found := title, false
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			break
		}
		b.WriteString(rest[:open])
		v := input.Get(rest[open+1 : open+end]).String()
		found = found || v != ""
		b.WriteString(rel(v, cwd))
		rest = rest[open+end+1:]
	}
	b.WriteString(rest)
	if !found && strings.Contains(title, "{") {
		return strings.TrimSpace(title[:strings.IndexByte(title, '{')])
	}
	return strings.TrimSpace(b.String())
}
