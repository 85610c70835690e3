package main

import (
	"bytes"
	"encoding/json"

	"github.com/acpbridge/acpbridge/adapters/replay/recording"
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
	var out bytes.Buffer
	asked, nextID := 0, 1
	add := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
	}
	call := func(method string, params any) {
		add(map[string]any{"id": nextID, "method": method, "params": params})
		nextID++
	}
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
			call("initialize", map[string]any{"protocolVersion": 1,
				"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false},
				"clientInfo":         map[string]any{"name": "golden", "version": "1"}})
		case m.Method == "" && len(m.ID) > 0: // a permission answer
			asked++
			var r map[string]any
			_ = json.Unmarshal(m.Result, &r)
			if kind == "codex" {
				r = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": r["decision"]}}
			}
			add(map[string]any{"id": asked, "result": r})
		case kind != "codex" && len(m.ID) > 0:
			call(m.Method, p)
		case kind != "codex":
			add(map[string]any{"method": m.Method, "params": p})
		case m.Method == "thread/start":
			call("session/new", map[string]any{"cwd": p["cwd"], "mcpServers": []any{}})
		case m.Method == "turn/start":
			call("session/prompt", map[string]any{"sessionId": p["threadId"], "prompt": acpPrompt(p["input"])})
		case m.Method == "turn/interrupt":
			add(map[string]any{"method": "session/cancel", "params": map[string]any{"sessionId": p["threadId"]}})
		}
	}
	return out.Bytes()
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
