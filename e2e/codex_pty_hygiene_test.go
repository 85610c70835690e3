//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestCodexTUIShutdownLeavesNoProcess runs `acpbridge pty -- codex` (the
// built-in codex profile, the real Codex TUI offline) and stops the bridge
// in the middle of a streaming turn, by stdin EOF, SIGTERM and SIGINT.
// Before the stop, a command Codex ran has left a daemon in a session of
// its own, which outlives the TUI when nothing else stops it; neither may
// survive the bridge.
func TestCodexTUIShutdownLeavesNoProcess(t *testing.T) {
	bin := codexenv.Require(t)
	for _, tt := range stopWays {
		t.Run(tt.name, func(t *testing.T) {
			srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
				{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hello.")}},
				{Match: "start a daemon", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
					Input: mustJSON(map[string]string{"command": codexenv.DetachCommand,
						"sandbox_permissions": "require_escalated", "justification": "start a daemon"})}}},
				{Match: "daemon-started", Blocks: []modelserver.Block{modelserver.Text("Started.")}},
				{Match: "stream slowly", DeltaDelayMS: 20, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
					Text: strings.Repeat("slow words ", 300), Deltas: 300}}},
			}}, modelserver.Options{})
			url := srv.Start()
			defer srv.Close()
			env, err := codexenv.New(t.TempDir(), url, "\n[tui]\nscreen_reader_detection_done = true\n\n[notice.model_migrations]\n\"gpt-5.5\" = \"gpt-6-sol\"\n")
			if err != nil {
				t.Fatal(err)
			}
			// A git folder, which Codex asks to trust (the profile says
			// yes); in one it does not trust, the command would run
			// sandboxed.
			if out, err := exec.Command("git", "init", "-q", env.Dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
			b := startLineBridge(t, bridgeproc.Options{Args: []string{"--log-level", "debug", "--log-format", "json", "pty", "--", bin},
				Env: append(append(os.Environ(), env.Vars...), "TERM=xterm-256color", "GORACE=atexit_sleep_ms=0")})
			until := func(what string, ok func(map[string]any) bool) map[string]any {
				t.Helper()
				return b.until(what, 30*time.Second, ok)
			}
			b.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			until("initialize result", func(m map[string]any) bool { return m["id"] == float64(1) })
			b.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + env.Dir + `","mcpServers":[]}}`)
			res := until("session/new result", func(m map[string]any) bool { return m["id"] == float64(2) })
			result, _ := res["result"].(map[string]any)
			sid, _ := result["sessionId"].(string)
			if sid == "" {
				t.Fatalf("session/new = %v", res)
			}
			// A whole turn first. Codex's notify report reaches the bridge
			// through this binary's own reporter (the turn may have ended
			// on Codex's done line already: whichever comes first).
			b.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"say hi"}]}}`)
			res = until("the first turn's end", func(m map[string]any) bool { return m["id"] == float64(4) })
			if r, _ := res["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("first turn = %v, want end_turn", res)
			}
			for wait := time.Now().Add(10 * time.Second); !strings.Contains(b.Stderr.String(), `agent-turn-complete`); {
				if time.Now().After(wait) {
					t.Fatal("no notify report from Codex within 10 s of the turn's end")
				}
				time.Sleep(20 * time.Millisecond)
			}
			// A command that leaves a daemon behind, allowed.
			b.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"start a daemon"}]}}`)
			asked := false
			res = until("the daemon turn's end", func(m map[string]any) bool {
				if m["method"] == "session/request_permission" {
					asked = true
					b.send(`{"jsonrpc":"2.0","id":` + string(mustJSON(m["id"])) + `,"result":{"outcome":{"outcome":"selected","optionId":` +
						string(mustJSON(optionNamed(t, m, "Yes, proceed"))) + `}}}`)
				}
				return m["id"] == float64(5)
			})
			if r, _ := res["result"].(map[string]any); r["stopReason"] != "end_turn" {
				t.Fatalf("daemon turn = %v, want end_turn", res)
			}
			if !asked {
				t.Fatal("Codex ran the command without asking")
			}
			b.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"stream slowly"}]}}`)
			until("reply text", func(m map[string]any) bool {
				return m["method"] == "session/update" && strings.Contains(string(mustJSON(m)), "agent_message_chunk")
			})
			// The shell's background job may exec after Codex has seen the
			// command end; /proc is looked at.
			for wait := time.Now().Add(10 * time.Second); !strings.Contains(strings.Join(env.Processes(b.Cmd.Process.Pid), "\n"), " sleep 613"); {
				if time.Now().After(wait) {
					t.Fatalf("no detached process among %v: the test would prove nothing", env.Processes(b.Cmd.Process.Pid))
				}
				time.Sleep(20 * time.Millisecond)
			}

			start := time.Now()
			tt.stop(t, b.Cmd, b.Stdin)
			b.drain()
			exitsWithin(t, b.Proc, 10*time.Second)
			t.Logf("bridge exited %v after the stop", time.Since(start).Round(time.Millisecond))
			if left := env.Processes(0); len(left) > 0 {
				t.Errorf("these survived the bridge: %v", left)
				for _, p := range left {
					pid, _ := strconv.Atoi(strings.Fields(p)[0])
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// optionNamed is the optionId of the permission request's option called
// name.
func optionNamed(t *testing.T, ask map[string]any, name string) string {
	t.Helper()
	params, _ := ask["params"].(map[string]any)
	opts, _ := params["options"].([]any)
	for _, o := range opts {
		if o, _ := o.(map[string]any); o["name"] == name {
			id, _ := o["optionId"].(string)
			return id
		}
	}
	t.Fatalf("no option %q in %v", name, ask)
	return ""
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
