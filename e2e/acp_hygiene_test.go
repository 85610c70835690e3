//go:build linux

package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestNativeAgentShutdownLeavesNoProcess runs `acpbridge gemini` against
// the scripted agent behind a shell script that first starts a grandchild
// (as the npm shims of these CLIs do), and checks that on stdin EOF and on
// SIGTERM in the middle of a turn the bridge exits within 2 s and no process
// it started survives: not the agents (the one asked at initialize and the
// session's), not their grandchildren.
func TestNativeAgentShutdownLeavesNoProcess(t *testing.T) {
	t.Parallel()
	for _, tt := range stopWays[:2] {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script, pidFile := shimWithGrandchild(t, dir, "gemini", acpAgentPath)
			// Under -race the runtime sleeps 1 s at exit by default
			// (atexit_sleep_ms): not the bridge's time.
			b := startLineBridge(t, bridgeproc.Options{Args: []string{"gemini", "--path", script},
				Env: append(os.Environ(), "GORACE=atexit_sleep_ms=0")})
			b.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			b.until("initialize result", 20*time.Second, func(m map[string]any) bool { return m["id"] == float64(1) })
			b.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + dir + `","mcpServers":[]}}`)
			var sid string
			b.until("session/new result", 20*time.Second, func(m map[string]any) bool {
				if res, ok := m["result"].(map[string]any); ok && m["id"] == float64(2) {
					sid, _ = res["sessionId"].(string)
					return true
				}
				return false
			})
			// "hang" ignores session/cancel: the bridge has to stop it.
			b.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hang"}]}}`)
			b.until("an update of the turn", 20*time.Second, func(m map[string]any) bool { return m["method"] == "session/update" })
			// The agent asked at initialize has been stopped already; the
			// session's agent and its grandchild run.
			pids := readAllPids(t, pidFile)
			if len(pids) != 4 {
				t.Fatalf("expected two agents and their grandchildren, got pids %v", pids)
			}
			for _, pid := range pids[2:] {
				if !bridgeproc.Alive(pid) {
					t.Fatalf("process %d is not running before the stop: the test would prove nothing", pid)
				}
			}

			tt.stop(t, b.Cmd, b.Stdin)
			b.drain()
			exitsWithin(t, b.Proc, 10*time.Second)
			noSurvivors(t, pids, "started by the bridge")
		})
	}
}
