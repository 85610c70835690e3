//go:build unix

package native_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestQuirksRealCLIs runs each pinned native-ACP CLI through the bridge,
// offline, and checks what the editor gets where QUIRKS.md says the CLI
// trips a client: both ways of offering the mode, a tool call announced
// before it is asked about and shown pending while asked, a rejected call
// ending failed, no status line as agent text, and no command list sent
// twice in a row (Qwen Code repeats it). Every frame is checked against the
// ACP schema by the harness.
func TestQuirksRealCLIs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cli string
		// mode: the session offers a mode (as modes or a config option).
		mode bool
		// notice: the status line after the rejection, as a notice.
		notice string
		// refresh: a request that makes the agent send its unchanged
		// available_commands_update again.
		refresh string
	}{
		{"gemini", true, "", ""},
		{"qwen", true, "", "qwen/control/workspace/extensions/refresh"},
		{"opencode", false, "", ""},
		{"copilot", true, "Operation cancelled by user", ""},
	} {
		t.Run(tt.cli, func(t *testing.T) {
			srv := modelserver.New(&modelserver.Scenario{
				Name:     "quirks",
				SideText: "Scripted session",
				Turns: []modelserver.Turn{
					{Match: "RUN-REJECTED", Blocks: []modelserver.Block{
						modelserver.Text("Writing it."),
						{Type: "tool_use", Role: modelserver.RoleShell, Input: json.RawMessage(`{"command":"echo no > rejected.txt","description":"Write a file"}`)},
					}},
				},
				Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Understood.")}},
			}, modelserver.Options{Logf: t.Logf})
			url := srv.Start()
			t.Cleanup(srv.Close)
			ao, env := cliOptions(t, tt.cli, url, t.TempDir())
			e := start(t, options{agent: &ao, answer: answerPermission("")})
			caps := map[string]any{"session": map[string]any{"notices": map[string]any{}}}
			if f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}); f.Error != nil {
				t.Fatalf("initialize: %+v", f.Error)
			}
			f := e.call("session/new", map[string]any{"cwd": env.Dir, "mcpServers": []any{}})
			var opened struct {
				SessionID     string         `json:"sessionId"`
				ConfigOptions []configOption `json:"configOptions"`
				Modes         *struct {
					Current string `json:"currentModeId"`
				} `json:"modes"`
				Models *struct {
					Current   string `json:"currentModelId"`
					Available []struct {
						ID string `json:"modelId"`
					} `json:"availableModels"`
				} `json:"models"`
			}
			if f.Error != nil || json.Unmarshal(f.Result, &opened) != nil {
				t.Fatalf("session/new: %s %+v", f.Result, f.Error)
			}
			if tt.mode {
				var option bool
				for _, o := range opened.ConfigOptions {
					option = option || o.Category == "mode"
				}
				if !option || opened.Modes == nil {
					t.Errorf("the mode is offered as a config option %v and as modes %v; want both", option, opened.Modes != nil)
				}
			}
			if m := opened.Models; m != nil {
				found := false
				for _, a := range m.Available {
					found = found || a.ID == m.Current
				}
				if !found {
					t.Errorf("current model %q not among the models", m.Current)
				}
			}

			before := e.noteCount()
			f = e.call("session/prompt", prompt(opened.SessionID, "RUN-REJECTED: write the file."))
			stopReason(t, f)
			notes := e.notesSince(before)[:f.notesBefore-before]
			at := e.askedAt("session/request_permission")
			if len(at) != 1 {
				t.Fatalf("%d permission requests, want 1", len(at))
			}
			ids := map[string]bool{}
			for _, u := range updates(notes) {
				if id, _ := u["toolCallId"].(string); id != "" {
					ids[id] = true
				}
			}
			if len(ids) != 1 {
				t.Fatalf("tool calls %v, want one", ids)
			}
			for id := range ids {
				asked := toolStatuses(e.notesSince(before)[:at[0]-before], id)
				if len(asked) == 0 || !strings.HasPrefix(asked[0], "tool_call:") || last(asked) != "pending" && last(asked) != "tool_call:pending" {
					t.Errorf("when asked, the editor had %q for the call, want a tool_call, pending", asked)
				}
				if got := toolStatuses(notes, id); last(got) != "failed" {
					t.Errorf("rejected call's updates %q, want it failed before the answer", got)
				}
			}
			var notices []string
			for _, u := range updates(notes) {
				if u["sessionUpdate"] == "notice" {
					notices = append(notices, u["title"].(string))
				}
			}
			if tt.notice != "" && (len(notices) != 1 || notices[0] != tt.notice) {
				t.Errorf("notices %q, want %q", notices, tt.notice)
			}
			for _, c := range chunks(notes) {
				if strings.HasPrefix(c, "Info: ") || strings.HasPrefix(c, "Warning: ") {
					t.Errorf("status line as agent text: %q", c)
				}
			}

			if tt.refresh != "" {
				// Qwen Code sends its command list again, unchanged,
				// when asked to refresh its extensions, before its
				// answer.
				if f := e.callOffSchema(tt.refresh, map[string]any{"sessionId": opened.SessionID}); f.Error != nil {
					t.Fatalf("%s: %+v", tt.refresh, f.Error)
				}
			}
			lists := commandLists(e.notesSince(0))
			for i := 1; i < len(lists); i++ {
				if lists[i] == lists[i-1] {
					t.Errorf("the editor got the same command list twice in a row: %.200s...", lists[i])
				}
			}
			t.Logf("%d command lists from the agent, %d to the editor", e.commandsFromAgent.Load(), len(lists))
			if sent := int(e.commandsFromAgent.Load()); tt.refresh != "" && sent <= len(lists) {
				t.Errorf("%s sent %d command lists, one of them again after %s, and the editor got %d; want fewer (or it no longer repeats: QUIRKS.md)",
					tt.cli, sent, tt.refresh, len(lists))
			}
		})
	}
}
