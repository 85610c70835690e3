package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEditorLogIsQuiet: editors show an agent's stderr to the user, line by
// line. A session that goes well (initialize, session/new, stdin closed)
// writes nothing there by default; the same run with --log-file keeps its
// info lines in the file.
func TestEditorLogIsQuiet(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "acpbridge.log")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"stderr", nil},
		{"log file", []string{"--log-file", logFile}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ACPBRIDGE_LOG_LEVEL", "")
			b := startBridge(t, append(tt.args, "replay", fixture("claude/text.txtar"))...)
			r := bufio.NewReader(b.Stdout)
			call := func(line string) {
				t.Helper()
				if _, err := b.Stdin.Write([]byte(line + "\n")); err != nil {
					t.Fatal(err)
				}
				for {
					got, err := r.ReadString('\n')
					if err != nil {
						t.Fatalf("reading the answer to %s: %v", line, err)
					}
					var m struct{ ID json.RawMessage }
					if json.Unmarshal([]byte(got), &m) == nil && len(m.ID) > 0 {
						return
					}
				}
			}
			call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			call(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + t.TempDir() + `","mcpServers":[]}}`)
			b.Stdin.Close()
			// Stdout ends when the bridge has stopped; Wait must not close
			// it under the checker still reading it.
			if _, err := io.Copy(io.Discard, r); err != nil {
				t.Fatal(err)
			}
			if err := b.Wait(t, 10*time.Second); err != nil {
				t.Fatalf("bridge exit: %v", err)
			}
			if s := b.Stderr.String(); s != "" {
				t.Errorf("the editor's log got:\n%s", s)
			}
			if tt.args == nil {
				return
			}
			data, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"level":"info"`) || !strings.Contains(string(data), "session opened") {
				t.Errorf("log file lacks the info lines:\n%s", data)
			}
		})
	}
}
