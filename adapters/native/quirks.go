package native

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/jsonscan"
)

// The fixes below are for what the native-ACP CLIs send that a client would
// trip on (fixtures/testsupport/agentenv/QUIRKS.md has the observations). Everything
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

// commandList is an available_commands_update's update in a canonical
// form (keys sorted, insignificant space gone), to tell a repeat of the
// session's last list: Qwen Code sends its unchanged list again whenever
// it reloads its commands, Copilot CLI at the first prompt, and a client
// rebuilds its command menu for each. nil when the params do not decode:
// such an update is passed on as it is.
func commandList(params json.RawMessage) []byte {
	var p struct {
		Update json.RawMessage `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(p.Update))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	out, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return nil
	}
	return out
}

// updateKind returns the sessionUpdate discriminator of a session/update's
// params without decoding them, as written (escapes and all), or nil.
//
// The layout every CLI writes, sessionId first and the discriminator first
// in the update, compacted by split, is matched in place: two prefix tests
// and two byte searches, a fifth of the cost per update of a skim
// (BenchmarkQuirkClientChunk). Any other layout is skimmed, as far as the
// member.
func updateKind(params []byte) []byte {
	const head, mid = `{"sessionId":"`, `","update":{"sessionUpdate":"`
	if bytes.HasPrefix(params, []byte(head)) {
		if i := bytes.IndexByte(params[len(head):], '"'); i >= 0 {
			if rest := params[len(head)+i:]; bytes.HasPrefix(rest, []byte(mid)) {
				rest = rest[len(mid):]
				if j := bytes.IndexByte(rest, '"'); j >= 0 {
					return rest[:j]
				}
			}
		}
	}
	s := jsonscan.Lax{B: params}
	if !s.Member("update") || !s.Member("sessionUpdate") {
		return nil
	}
	return s.StringValue()
}

// zeroUsage drops the usage of a cancelled prompt answer when every count
// in it is zero: opencode reports that for a cancelled turn, and clients
// that show usage would reset their display to nothing. A turn is
// cancelled when the answer says so or when the editor cancelled it
// (cancelled): opencode answers a cancel that comes early end_turn, which
// the bridge answers "cancelled". The byte tests keep the decode off
// ordinary answers.
func zeroUsage(res json.RawMessage, cancelled bool) json.RawMessage {
	if !bytes.Contains(res, []byte(`"usage"`)) || !cancelled && !bytes.Contains(res, []byte(`"cancelled"`)) {
		return res
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(res, &m) != nil || !cancelled && string(m["stopReason"]) != `"cancelled"` {
		return res
	}
	var usage map[string]json.Number
	if json.Unmarshal(m["usage"], &usage) != nil {
		return res
	}
	for _, n := range usage {
		if f, err := n.Float64(); err != nil || f != 0 {
			return res
		}
	}
	delete(m, "usage")
	out, err := json.Marshal(m)
	if err != nil {
		return res
	}
	return out
}

// withholdLoad reports an agent whose session/load is known to lose the
// session it loads, from its initialize agentInfo. Gemini CLI (0.61)
// starts a new recording under the loaded id in a new process: its first
// write resets the stored messages to a fresh context before they are read
// back, so the load fails ("No previous sessions found for this
// project.") or replays nothing, and the turns on disk are gone either
// way. Copying the file aside and restoring it does not help: a load of
// the restored file is damaged the same way. So the bridge does not offer
// the load, and the stored session stays whole for Gemini's own --resume.
// fixtures/testsupport/agentenv's loadDamages notices a release that fixes it.
func withholdLoad(info map[string]any) bool {
	name, _ := info["name"].(string)
	return name == "gemini-cli"
}
