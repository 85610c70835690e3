//go:build linux

package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
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
			cmd := exec.Command(binPath, "gemini", "--path", script)
			// Under -race the runtime sleeps 1 s at exit by default
			// (atexit_sleep_ms): not the bridge's time.
			cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			defer func() {
				if t.Failed() {
					t.Logf("bridge stderr:\n%s", stderr.String())
				}
			}()
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			frames := make(chan map[string]any, 100)
			go func() {
				defer close(frames)
				r := bufio.NewReader(stdout)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					var m map[string]any
					json.Unmarshal(line, &m)
					frames <- m
				}
			}()
			send := func(s string) { io.WriteString(stdin, s+"\n") }
			until := func(ok func(map[string]any) bool) {
				deadline := time.After(20 * time.Second)
				for {
					select {
					case m, open := <-frames:
						if !open {
							t.Fatal("bridge output ended")
						}
						if ok(m) {
							return
						}
					case <-deadline:
						t.Fatal("no expected frame within 20s")
					}
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			until(func(m map[string]any) bool { return m["id"] == float64(1) })
			send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + dir + `","mcpServers":[]}}`)
			var sid string
			until(func(m map[string]any) bool {
				if res, ok := m["result"].(map[string]any); ok && m["id"] == float64(2) {
					sid, _ = res["sessionId"].(string)
					return true
				}
				return false
			})
			// "hang" ignores session/cancel: the bridge has to stop it.
			send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hang"}]}}`)
			until(func(m map[string]any) bool { return m["method"] == "session/update" })
			// The agent asked at initialize has been stopped already; the
			// session's agent and its grandchild run.
			pids := readAllPids(t, pidFile)
			if len(pids) != 4 {
				t.Fatalf("expected two agents and their grandchildren, got pids %v", pids)
			}
			for _, pid := range pids[2:] {
				if !alive(pid) {
					t.Fatalf("process %d is not running before the stop: the test would prove nothing", pid)
				}
			}

			tt.stop(t, cmd, stdin)
			go func() {
				for range frames {
				}
			}()
			exitsWithin(t, cmd, 2*time.Second)
			noSurvivors(t, pids, "started by the bridge")
		})
	}
}
