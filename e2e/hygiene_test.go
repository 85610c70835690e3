//go:build linux

package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestShutdownLeavesNoChild runs `acpbridge claude` against a stand-in CLI
// (a shell script that starts a grandchild, then execs the fake agent playing
// a recorded session) and checks that on stdin EOF, and on SIGTERM or SIGINT
// in the middle of a turn, the bridge exits within 2 s and no process it started
// survives: neither the CLI nor the grandchild the CLI left behind. The open
// session/prompt is answered "cancelled" before the bridge exits.
func TestShutdownLeavesNoChild(t *testing.T) {
	t.Parallel()
	for _, tt := range stopWays {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script, pidFile := shimWithGrandchild(t, dir, "claude", fakeAgentPath)
			b := startLineBridge(t, bridgeproc.Options{Args: []string{"claude", "--claude-path", script},
				Env: append(os.Environ(), "ACPBRIDGE_FAKEAGENT="+fixture("claude/bash_allow.txtar"))})
			send := b.send
			// until reads frames until one satisfies ok.
			until := func(ok func(map[string]any) bool) {
				t.Helper()
				b.until("a frame", time.Minute, ok)
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
			// A turn that stops at a permission request nobody answers: the
			// CLI is running and waiting when the bridge is told to stop.
			send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"run it"}]}}`)
			until(func(m map[string]any) bool { return m["method"] == "session/request_permission" })
			pids := readPids(t, pidFile)
			for _, pid := range pids {
				if !bridgeproc.Alive(pid) {
					t.Fatalf("process %d is not running before the stop: the test would prove nothing", pid)
				}
			}

			start := time.Now()
			tt.stop(t, b.Cmd, b.Stdin)
			// Every open request is answered before the bridge exits: the
			// prompt ends "cancelled", whichever way the bridge was stopped.
			answer := make(chan map[string]any, 1)
			go func() {
				defer close(answer)
				for m := range b.frames {
					if m["id"] == float64(3) {
						answer <- m
					}
				}
			}()
			exitsWithin(t, b.Proc, 10*time.Second)
			res, _ := (<-answer)["result"].(map[string]any)
			if res["stopReason"] != "cancelled" {
				t.Errorf("session/prompt (id 3) answer = %v, want stopReason cancelled before the bridge exits", res)
			}
			t.Logf("bridge exited %v after the stop", time.Since(start).Round(time.Millisecond))
			noSurvivors(t, pids, "started for the session")
		})
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	pids := readAllPids(t, path)
	if len(pids) != 2 {
		t.Fatalf("expected the CLI's and its grandchild's pids, got %v", pids)
	}
	return pids
}

// readAllPids reads the pids a shim wrote, one a line.
func readAllPids(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// stopWays are the ways a stdio bridge is told to stop in the middle of a
// turn: the editor closes its stdin, or the bridge gets SIGTERM or SIGINT.
var stopWays = []struct {
	name string
	stop func(t *testing.T, cmd *exec.Cmd, stdin io.Closer)
}{
	{"stdin EOF during a turn", func(t *testing.T, cmd *exec.Cmd, stdin io.Closer) { stdin.Close() }},
	{"SIGTERM during a turn", func(t *testing.T, cmd *exec.Cmd, stdin io.Closer) { signal(t, cmd, syscall.SIGTERM) }},
	{"SIGINT during a turn", func(t *testing.T, cmd *exec.Cmd, stdin io.Closer) { signal(t, cmd, syscall.SIGINT) }},
}

func signal(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) {
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// shimWithGrandchild writes an executable named name in dir that starts a
// grandchild (sleep 300), as the npm launchers of agent CLIs leave one, then
// execs target; both pids go to the returned pid file.
func shimWithGrandchild(t *testing.T, dir, name, target string) (script, pidFile string) {
	t.Helper()
	pidFile = filepath.Join(dir, "pids")
	script = filepath.Join(dir, name)
	body := fmt.Sprintf("#!/bin/sh\nsleep 300 &\necho $! >> %q\necho $$ >> %q\nexec %q \"$@\"\n", pidFile, pidFile, target)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, pidFile
}

// exitsWithin fails the test unless p exits within d.
//
// d is a bound on hanging, not a speed target: the tests run beside others
// on loaded machines, where the race detector's exit alone takes a while.
func exitsWithin(t *testing.T, p *bridgeproc.Proc, d time.Duration) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(d):
		t.Fatalf("bridge still running %v after the stop", d)
	}
}

// noSurvivors fails the test for every pid still alive, and kills it.
func noSurvivors(t *testing.T, pids []int, what string) {
	t.Helper()
	for _, pid := range pids {
		if bridgeproc.Alive(pid) {
			t.Errorf("process %d (%s) survived the bridge", pid, what)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
