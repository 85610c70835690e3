package main

import (
	"bytes"
	"encoding/json"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// editorSection derives, from what the host sent, the editor's side of
// the same session through the bridge: the ACP messages a golden test
// sends (fixtures/doc.go, section editor). For a native-ACP agent they are
// the host's own lines (the bridge passes them through); for Codex they
// are the ACP requests that make the bridge send them (session/new for
// thread/start, session/prompt for turn/start, session/cancel for
// turn/interrupt). A permission answer goes to the bridge's own request,
// whose ids count from 1.
func editorSection(kind string, steps []recording.Step) []byte {
	var e editorLines
	for _, st := range steps {
		if st.Dir != recording.ToAgent {
			continue
		}
		var m rpcLine
		if json.Unmarshal(st.Line, &m) != nil {
			continue
		}
		var p map[string]any
		_ = json.Unmarshal(m.Params, &p)
		switch {
		case m.Method == "initialize":
			e.initialize()
		case m.Method == "" && len(m.ID) > 0: // a permission answer
			var r map[string]any
			_ = json.Unmarshal(m.Result, &r)
			if kind == "codex" {
				r = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": r["decision"]}}
			}
			e.answer(r)
		case kind != "codex" && len(m.ID) > 0:
			e.call(m.Method, p)
		case kind != "codex":
			e.notify(m.Method, p)
		case m.Method == "thread/start":
			e.call("session/new", map[string]any{"cwd": p["cwd"], "mcpServers": []any{}})
		case m.Method == "turn/start":
			e.call("session/prompt", map[string]any{"sessionId": p["threadId"], "prompt": acpPrompt(p["input"])})
		case m.Method == "turn/interrupt":
			e.notify("session/cancel", map[string]any{"sessionId": p["threadId"]})
		}
	}
	return e.out.Bytes()
}

// editorLines writes an editor section: JSON-RPC lines, the editor's
// calls numbered from 1, and its answers to the bridge's permission
// requests, whose ids count from 1 too.
type editorLines struct {
	out    bytes.Buffer
	called int // ids of the editor's calls so far
	asked  int // permission requests of the bridge answered so far
}

func (e *editorLines) add(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	e.out.Write(b)
	e.out.WriteByte('\n')
}

func (e *editorLines) call(method string, params any) {
	e.called++
	e.add(map[string]any{"id": e.called, "method": method, "params": params})
}

func (e *editorLines) notify(method string, params any) {
	e.add(map[string]any{"method": method, "params": params})
}

func (e *editorLines) answer(result any) {
	e.asked++
	e.add(map[string]any{"id": e.asked, "result": result})
}

// initialize is the golden tests' initialize: a client with no file
// system or terminal of its own.
func (e *editorLines) initialize() {
	e.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]any{"name": "golden", "version": "1"}})
}

// acpPrompt is the ACP prompt of Codex's turn input: its text items.
func acpPrompt(input any) []any {
	items, _ := input.([]any)
	prompt := []any{}
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == "text" {
			prompt = append(prompt, map[string]any{"type": "text", "text": m["text"]})
		}
	}
	return prompt
}
