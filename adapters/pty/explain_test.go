package pty

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Explain shows, as the fake TUI's screen changes, which of the profile's
// patterns match it: the start-up dialog, the idle screen, busy while the
// reply streams, the dialog with its options, and idle again, each with
// the lines it matches and the chrome; the user's lines are typed as
// prompts and ":keys" lines as keys.
func TestExplain(t *testing.T) {
	t.Parallel()
	requireUnix(t)
	p := faketuiProfile(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, typing := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	// Each word of the reply 100 ms apart: the busy screen lasts long
	// enough to be shown however loaded the machine is (at 20 ms a loaded
	// machine showed the dialog first).
	go func() {
		done <- Explain(t.Context(), p, Options{Command: []string{exe, "-trust", "-word-delay", "100ms"}, Name: "faketui",
			Env: []string{"ACPBRIDGE_FAKETUI=1"}, StopGrace: 500 * time.Millisecond}, in, &out)
	}()
	// wait returns once the output from at on holds want, and where it
	// ends.
	wait := func(at int, want string) int {
		t.Helper()
		for limit := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if i := strings.Index(out.String()[at:], want); i >= 0 {
				return at + i + len(want)
			}
			if time.Now().After(limit) {
				t.Fatalf("no %q in what explain wrote:\n%s", want, out.String()[at:])
			}
		}
	}
	at := wait(0, `=> start-up dialog "trust": answered before the first prompt`)
	at = wait(0, `start-up dialog "trust" 'Do you trust the files in this folder\?' matches line 4`)
	io.WriteString(typing, ":keys 1\n")
	at = wait(at, "=> idle: a turn ends here once the screen stays unchanged for 100ms")
	wait(0, `idle '^  \? for shortcuts$' matches line 6`)
	wait(0, "  1│FakeTUI v1 · a fake agent  ← chrome")
	io.WriteString(typing, "please run it\n")
	typed := at
	at = wait(at, "=> busy: the agent works")
	wait(typed, `busy '^  esc to interrupt$' matches line`)
	at = wait(at, `=> dialog "run command", titled "Run command: ls -la", options: Yes (allow_once), No (reject_once)`)
	io.WriteString(typing, ":keys y\n")
	at = wait(at, "=> idle")
	wait(0, "Command ran: 3 files.")
	typing.Close()
	if err := <-done; err != nil {
		t.Fatalf("Explain: %v", err)
	}
}
