//go:build linux

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInteropTypeScriptSDKTerminalOutput has the official TypeScript SDK
// advertise _meta.terminal_output to `acpbridge serve claude` on the real
// CLI and run a slow Bash command: its output must arrive as
// _meta.terminal_output chunks on tool_call_updates, at least two of them
// before the call completes, adding up to the whole output.
func TestInteropTypeScriptSDKTerminalOutput(t *testing.T) {
	t.Parallel()
	const id = "toolu_e2e_live"
	w := newE2EWorld(t, "bash_live")
	out := runInteropScript(t, w, "live.mjs", "Print three lines slowly.")
	var got struct {
		Chunks []struct {
			ToolCallID, TerminalID, Data string
			AfterCompletion              bool
		}
		ToolStatus map[string]string
		StopReason string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("live.mjs printed %q: %v", out, err)
	}
	var all strings.Builder
	live := 0
	for _, c := range got.Chunks {
		if c.ToolCallID != id || c.TerminalID != id {
			t.Errorf("chunk %+v: want tool call and terminal %s", c, id)
			continue
		}
		if !c.AfterCompletion {
			live++
		}
		all.WriteString(c.Data)
	}
	if live < 2 {
		t.Errorf("%d terminal_output chunks before the call completed, want at least 2: %+v", live, got.Chunks)
	}
	if all.String() != "line1\nline2\nline3\n" {
		t.Errorf("terminal_output chunks add up to %q, want the command's three lines", all.String())
	}
	if got.StopReason != "end_turn" || got.ToolStatus[id] != "completed" {
		t.Errorf("stop reason %q, tool statuses %v", got.StopReason, got.ToolStatus)
	}
}
