package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// printer renders the conversation for a person. Streaming text chunks are
// joined into paragraphs; everything else starts its own line.
type printer struct {
	mu     sync.Mutex
	w      io.Writer
	color  bool
	stream string            // guarded by mu; "agent" or "thought" while a chunk run is open
	tools  map[string]string // guarded by mu; tool call id -> title
}

func newPrinter(w io.Writer, color bool) *printer {
	return &printer{w: w, color: color, tools: make(map[string]string)}
}

func (p *printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line ends any open chunk run and prints one line.
func (p *printer) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endRun()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *printer) endRun() {
	if p.stream != "" {
		fmt.Fprintln(p.w)
		p.stream = ""
	}
}

func (p *printer) banner(title, name, version string, proto int) {
	if title == "" {
		title = name
	}
	p.line("%s %s %s (ACP protocol %d)", p.paint("1", "agent:"), title, version, proto)
}

func (p *printer) session(id, mode string) {
	if mode != "" {
		p.line("%s %s (mode: %s)", p.paint("1", "session:"), id, mode)
		return
	}
	p.line("%s %s", p.paint("1", "session:"), id)
}

func (p *printer) user(text string) { p.line("\n%s %s", p.paint("1;34", "you>"), text) }

func (p *printer) stop(reason string) { p.line("%s %s", p.paint("1", "turn ended:"), reason) }

func (p *printer) failed(err error) { p.line("%s %v", p.paint("1;31", "turn failed:"), err) }

func (p *printer) permission(title, kind, answer string) {
	p.line("  %s %s [%s] -> %s", p.paint("1;33", "permission?"), title, kind, p.paint("1", answer))
}

// update renders one session/update.
func (p *printer) update(params json.RawMessage) {
	var n struct {
		Update map[string]json.RawMessage `json:"update"`
	}
	if json.Unmarshal(params, &n) != nil {
		return
	}
	var kind string
	json.Unmarshal(n.Update["sessionUpdate"], &kind)
	switch kind {
	case "agent_message_chunk":
		p.chunk("agent", p.paint("1;32", "agent>")+" ", text(n.Update["content"]))
	case "agent_thought_chunk":
		p.chunk("thought", p.paint("2", "  thinking: "), p.paint("2", text(n.Update["content"])))
	case "user_message_chunk":
		p.line("%s %s", p.paint("1;34", "you>"), text(n.Update["content"]))
	case "tool_call", "tool_call_update":
		p.tool(kind, n.Update)
	case "plan":
		p.plan(n.Update["entries"])
	case "current_mode_update":
		p.line("  %s %s", p.paint("1", "mode:"), str(n.Update["currentModeId"]))
	case "available_commands_update":
		var cmds []struct{ Name string }
		json.Unmarshal(n.Update["availableCommands"], &cmds)
		names := make([]string, 0, len(cmds))
		for i, c := range cmds {
			if i == 8 {
				names = append(names, fmt.Sprintf("(+%d more)", len(cmds)-i))
				break
			}
			names = append(names, "/"+c.Name)
		}
		p.line("  %s %s", p.paint("2", "commands:"), p.paint("2", strings.Join(names, " ")))
	}
}

func (p *printer) chunk(stream, prefix, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stream != stream {
		p.endRun()
		fmt.Fprint(p.w, prefix)
		p.stream = stream
	}
	fmt.Fprint(p.w, s)
}

func (p *printer) tool(kind string, u map[string]json.RawMessage) {
	id, title, status := str(u["toolCallId"]), str(u["title"]), str(u["status"])
	p.mu.Lock()
	if title != "" {
		p.tools[id] = title
	} else {
		title = p.tools[id]
	}
	p.mu.Unlock()
	if kind == "tool_call" {
		if status == "" {
			status = "pending"
		}
		p.line("  %s %s [%s] %s", p.paint("1;36", "tool:"), title, str(u["kind"]), status)
		return
	}
	if status == "" {
		return // a refinement of the title or input, not news for a reader
	}
	p.line("  %s %s %s", p.paint("1;36", "tool:"), title, p.paint(statusColor(status), status))
	for _, c := range contents(u["content"]) {
		p.line("%s", indent(c, "      "))
	}
}

func statusColor(s string) string {
	switch s {
	case "completed":
		return "32"
	case "failed":
		return "31"
	}
	return "0"
}

func (p *printer) plan(raw json.RawMessage) {
	var entries []struct{ Content, Status string }
	json.Unmarshal(raw, &entries)
	var b strings.Builder
	for _, e := range entries {
		mark := map[string]string{"completed": "[x]", "in_progress": "[>]"}[e.Status]
		if mark == "" {
			mark = "[ ]"
		}
		fmt.Fprintf(&b, "\n      %s %s", mark, e.Content)
	}
	p.line("  %s%s", p.paint("1;35", "plan:"), b.String())
}

// contents renders tool call content: text, diffs (as +/- lines), terminals.
func contents(raw json.RawMessage) []string {
	var items []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
		Path    string          `json:"path"`
		OldText *string         `json:"oldText"`
		NewText string          `json:"newText"`
	}
	json.Unmarshal(raw, &items)
	var out []string
	for _, it := range items {
		switch it.Type {
		case "content":
			if t := strings.TrimSpace(unfence(text(it.Content))); t != "" {
				out = append(out, clip(t, 12))
			}
		case "diff":
			out = append(out, diff(it.Path, it.OldText, it.NewText))
		}
	}
	return out
}

func diff(path string, old *string, new string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s", path)
	if old != nil {
		for _, l := range strings.Split(strings.TrimRight(*old, "\n"), "\n") {
			b.WriteString("\n- " + l)
		}
	}
	for _, l := range strings.Split(strings.TrimRight(new, "\n"), "\n") {
		b.WriteString("\n+ " + l)
	}
	return clip(b.String(), 16)
}

func clip(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) <= lines {
		return s
	}
	return strings.Join(ls[:lines], "\n") + fmt.Sprintf("\n… (%d more lines)", len(ls)-lines)
}

func indent(s, pre string) string { return pre + strings.ReplaceAll(s, "\n", "\n"+pre) }

func text(raw json.RawMessage) string {
	var c struct{ Type, Text string }
	json.Unmarshal(raw, &c)
	return c.Text
}

func str(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// unfence drops the Markdown code fence around command output: editors
// render it, a terminal shows it better bare.
func unfence(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) >= 2 && strings.HasPrefix(lines[0], "```") && lines[len(lines)-1] == "```" {
		return strings.Join(lines[1:len(lines)-1], "\n")
	}
	return s
}
