package acp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The fixes below are for what the native-ACP CLIs send that a client would
// trip on (fixtures/agentenv/QUIRKS.md has the observations). Everything
// else passes through unchanged.

// clientMethod reports whether an agent may send method to an ACP client:
// a client method of ACP v1, or an extension (leading underscore). Qwen Code
// sends extension methods without the underscore (craft/drainMidTurnQueue,
// qwen/notify/...): frames that fail the ACP schema and that a strict client
// rejects. The bridge answers such requests method-not-found itself, as a
// lenient client would, and drops such notifications.
func clientMethod(method string) bool {
	switch method {
	case acp.MethodSessionUpdate, acp.MethodSessionRequestPermission,
		acp.MethodFsReadTextFile, acp.MethodFsWriteTextFile,
		acp.MethodTerminalCreate, acp.MethodTerminalOutput, acp.MethodTerminalWaitForExit,
		acp.MethodTerminalKill, acp.MethodTerminalRelease,
		acp.MethodElicitationCreate, acp.MethodElicitationComplete, acp.MethodCancelRequest:
		return true
	}
	return strings.HasPrefix(method, "_")
}

// emptyChunk reports a session/update that is a message chunk with empty
// text. Qwen Code ends every assistant message with one; clients that open
// a new bubble per chunk show an empty one. The cheap byte test keeps the
// decode off the path of ordinary updates.
func emptyChunk(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`"text":""`)) {
		return false
	}
	var p struct {
		Update struct {
			Kind    string `json:"sessionUpdate"`
			Content struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	switch p.Update.Kind {
	case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
		return p.Update.Content.Type == "text" && p.Update.Content.Text != nil && *p.Update.Content.Text == ""
	}
	return false
}
