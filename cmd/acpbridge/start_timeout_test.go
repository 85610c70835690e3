//go:build !windows

package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartTimeoutFlag runs `acpbridge claude --start-timeout` against a CLI
// that never answers its initialize request: the prompt fails with an error
// naming the CLI, its path and the limit, instead of hanging.
func TestStartTimeoutFlag(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "claude")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := startBridge(t, "claude", "--start-timeout", "300ms", "--claude-path", script)
	r := bufio.NewReader(b.stdout)
	send := func(s string) {
		if _, err := io.WriteString(b.stdin, s+"\n"); err != nil {
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
