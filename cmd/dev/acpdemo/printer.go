package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// printer renders the conversation for a person. Streaming text chunks are
// joined into paragraphs; everything else starts its own line.
//
// A tool is shown under one name. An agent announces a tool before it knows
// its input (Claude Code's stream starts a Bash call as "Terminal", a Write
// as "Write") and names it properly in a later update; so a pending tool is
// held back until it has news (a status, a permission question) or something
// else is printed, and the name it is first printed with is kept.
type printer struct {
	mu     sync.Mutex
	w      io.Writer
	color  bool
	stream string           // guarded by mu; "agent" or "thought" while a chunk run is open
	tools  map[string]*tool // guarded by mu; by tool call id
	held   []string         // guarded by mu; ids of announced tools not printed yet, in order
}

// tool is what the printer knows of a tool call.
type tool struct {
	title, kind string
	printed     bool // title and kind are final
}

func newPrinter(w io.Writer, color bool) *printer {
	return &printer{w: w, color: color, tools: make(map[string]*tool)}
}

func (p *printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// line prints one line after any held tool and the open chunk run.
func (p *printer) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushHeld("")
	p.printf(format, args...)
}

// printf ends any open chunk run and prints one line. p.mu is held.
func (p *printer) printf(format string, args ...any) {
	p.endRun()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// flushHeld prints the held tools as pending, except skip. p.mu is held.
func (p *printer) flushHeld(skip string) {
	held := p.held
	p.held = nil
	for _, id := range held {
		if id == skip {
			continue
		}
		t := p.tools[id]
		t.printed = true
		p.printf("  %s %s [%s] pending", p.paint("1;36", "tool:"), t.title, t.kind)
	}
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

// session announces the new session. Its id is left out: it is random, and
// the demo's output is the same on every run.
func (p *printer) session(mode string) {
	if mode != "" {
		p.line("%s opened (mode: %s)", p.paint("1", "session:"), mode)
		return
	}
	p.line("%s opened", p.paint("1", "session:"))
}

func (p *printer) user(text string) { p.line("\n%s %s", p.paint("1;34", "you>"), text) }

func (p *printer) stop(reason string) { p.line("%s %s", p.paint("1", "turn ended:"), reason) }

func (p *printer) failed(err error) { p.line("%s %v", p.paint("1;31", "turn failed:"), err) }

// permission prints a question about tool id and its answer, naming the
// tool as it was printed.
func (p *printer) permission(id, title, kind, answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushHeld("")
	if t := p.tools[id]; t != nil {
		p.printf("  %s %s -> %s", p.paint("1;33", "permission?"), t.title, p.paint("1", answer))
		return
	}
	p.printf("  %s %s [%s] -> %s", p.paint("1;33", "permission?"), title, kind, p.paint("1", answer))
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
		// A count: the names (44 of them for Claude Code) at the top of
		// the conversation are noise, and an editor lists them on "/".
		var cmds []json.RawMessage
		json.Unmarshal(n.Update["availableCommands"], &cmds)
		p.line("  %s", p.paint("2", fmt.Sprintf("commands: %d available", len(cmds))))
	}
}

func (p *printer) chunk(stream, prefix, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushHeld("")
	if p.stream != stream {
		p.endRun()
		fmt.Fprint(p.w, prefix)
		p.stream = stream
	}
	fmt.Fprint(p.w, s)
}

// tool prints a tool call or its update; see printer for when and under
// which name.
func (p *printer) tool(kind string, u map[string]json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, status := str(u["toolCallId"]), str(u["status"])
	t := p.tools[id]
	if t == nil {
		t = &tool{}
		p.tools[id] = t
	}
	if !t.printed {
		if s := str(u["title"]); s != "" {
			t.title = s
		}
		if s := str(u["kind"]); s != "" {
			t.kind = s
		}
	}
	if kind == "tool_call" && (status == "" || status == "pending") {
		if !t.printed && !slices.Contains(p.held, id) {
			p.held = append(p.held, id)
		}
		return
	}
	if status == "" {
		return // a refinement of the title or input, not news for a reader
	}
	p.flushHeld(id)
	if !t.printed {
		t.printed = true
		p.printf("  %s %s [%s] %s", p.paint("1;36", "tool:"), t.title, t.kind, p.paint(statusColor(status), status))
	} else {
		p.printf("  %s %s %s", p.paint("1;36", "tool:"), t.title, p.paint(statusColor(status), status))
	}
	for _, c := range contents(u["content"]) {
		p.printf("%s", indent(c, "      "))
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
