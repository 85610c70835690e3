//go:build !windows

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestStartTimeoutFlag runs `acpbridge claude --start-timeout` against a CLI
// that never answers its initialize request: the prompt fails with an error
// naming the CLI, its path and the limit, instead of hanging.
func TestStartTimeoutFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "claude")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := startBridge(t, "claude", "--start-timeout", "300ms", "--claude-path", script)
	r := bufio.NewReader(b.Stdout)
	send := func(s string) {
		if _, err := io.WriteString(b.Stdin, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// answer reads frames until the answer to id.
	answer := func(id float64) map[string]any {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("bridge output ended before the answer to %v: %v", id, err)
			}
			var m map[string]any
			if json.Unmarshal(line, &m) == nil && m["id"] == id {
				return m
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + dir + `","mcpServers":[]}}`)
	res, _ := answer(2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hi"}]}}`)
	e, _ := answer(3)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	for _, want := range []string{"claude", script, "300ms", "--start-timeout"} {
		if !strings.Contains(msg, want) {
			t.Errorf("prompt error %q does not mention %q", msg, want)
		}
	}
}

// TestStopAnswersEveryOpenRequest stops the bridge (stdin EOF, SIGTERM)
// while a request other than a prompt is still running: session/set_mode
// waits for a CLI that never answers its initialize request. The request is
// answered before the bridge exits.
func TestStopAnswersEveryOpenRequest(t *testing.T) {
	t.Parallel()
	for _, sig := range []string{"stdin EOF", "SIGTERM"} {
		t.Run(sig, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "claude")
			if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			trace := filepath.Join(dir, "trace.jsonl")
			b := startLineBridge(t, bridgeproc.Options{Args: []string{"--trace", trace, "claude", "--claude-path", script}})
			answers := map[float64]map[string]any{}
			// answer reads frames until the answer to id, or EOF (nil).
			answer := func(id float64) map[string]any {
				for answers[id] == nil {
					m, open := <-b.frames
					if !open {
						return nil
					}
					if n, ok := m["id"].(float64); ok {
						answers[n] = m
					}
				}
				return answers[id]
			}
			send := b.send
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			answer(1)
			send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + dir + `","mcpServers":[]}}`)
			res, _ := answer(2)["result"].(map[string]any)
			sid, _ := res["sessionId"].(string)
			send(`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"` + sid + `","modeId":"plan"}}`)
			// The bridge has read the request (its trace shows it) before
			// it is stopped: a signal ends the reading of stdin.
			deadline := time.After(10 * time.Second)
			poll := time.NewTicker(10 * time.Millisecond)
			defer poll.Stop()
			for data, _ := os.ReadFile(trace); !strings.Contains(string(data), `"session/set_mode"`); data, _ = os.ReadFile(trace) {
				select {
				case <-poll.C:
				case <-deadline:
					t.Fatal("the bridge did not read session/set_mode within 10s")
				}
			}
			if sig == "SIGTERM" {
				b.Cmd.Process.Signal(syscall.SIGTERM)
			} else {
				b.Stdin.Close()
			}
			if m := answer(3); m == nil {
				t.Errorf("session/set_mode (id 3) was not answered before the bridge exited (%s)", sig)
			}
			b.Wait(t, 10*time.Second)
		})
	}
}
