//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestServeStopsChildren runs `acpbridge serve claude` against a stand-in
// CLI (a shell script that starts a grandchild, then execs the fake agent)
// and checks that no process started for a remote client's session
// survives, when the bridge gets SIGTERM during a turn and when the client
// goes away and its connection times out.
func TestServeStopsChildren(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []string
		stop  func(t *testing.T, s *served, r *remote)
	}{
		{"SIGTERM during a turn", nil, func(t *testing.T, s *served, _ *remote) {
			start := time.Now()
			s.stop(t)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("serve took %v to stop", d)
			}
		}},
		{"idle connection during a turn", []string{"--idle-timeout", "200ms"}, func(t *testing.T, s *served, r *remote) {
			r.cancel()
			<-r.done
			// Logged once the connection's sessions are closed and their
			// processes reaped.
			s.log(t, `"message":"connection closed"`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			script := filepath.Join(dir, "claude")
			body := fmt.Sprintf("#!/bin/sh\nsleep 300 &\necho $! >> %q\necho $$ >> %q\nexec %q \"$@\"\n", pidFile, pidFile, fakeAgentPath)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			args := append(tt.flags, "claude", "--claude-path", script)
			s := startServe(t, []string{"ACPBRIDGE_FAKEAGENT=" + fixture("claude/bash_allow.txtar")}, args...)
			r := dialRemote(t, s.url, "hygiene", "")
			sid := r.open(dir)
			r.call("session/prompt", map[string]any{"sessionId": sid,
				"prompt": []any{map[string]any{"type": "text", "text": "run it"}}})
			// The turn stops at a permission request nobody answers.
			r.until(func(m map[string]any) bool { return m["method"] == "session/request_permission" })
			pids := readPids(t, pidFile)
			for _, pid := range pids {
				if !bridgeproc.Alive(pid) {
					t.Fatalf("process %d is not running before the stop: the test would prove nothing", pid)
				}
			}
			tt.stop(t, s, r)
			for _, pid := range pids {
				if bridgeproc.Alive(pid) {
					t.Errorf("process %d (started for the session) survived", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}
