//go:build linux

package pty

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
)

// TestRealCodexTUIWrapper runs the pinned Codex TUI through a wrapper
// script that execs it without forwarding its arguments, as a user's
// wrapper may: the codex profile's notify arguments would be lost on it
// (or break it), so the profile (command_only) starts it without them.
// With no report its turns end on the idle screen once quiet (Codex spins
// a spinner in the terminal title while it works, so a pause in its stream
// does not look quiet; on a machine too loaded to keep that spinner going
// a turn may end early, which is why the profile prefers the reports).
func TestRealCodexTUIWrapper(t *testing.T) {
	c := newClient(nil)
	s, _, env := startCodexTUI(t, c, func(bin string, _ *codexenv.Env) []string {
		w := filepath.Join(t.TempDir(), "my-codex-wrapper")
		if err := os.WriteFile(w, []byte("#!/bin/sh\nexec "+shellLine([]string{bin})+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return []string{w}
	})
	if s.(*closer).session.sig != nil {
		t.Error("the wrapper was started with the profile's notify arguments; command_only should keep them away")
	}
	t.Run("text", func(t *testing.T) {
		if got, want := codexTurn(t, s, c, "say hi", ""), "Hello from the scripted model."; got != want {
			t.Errorf("reply = %q, want %q; the screen shows:\n%s", got, want, lastLines(s.(*closer).session.scr.view().text, 16))
		}
	})
	// Without the profile's arguments Codex may start differently (its
	// app-server); whatever it started is gone after Close all the same.
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := env.Processes(0); len(left) > 0 {
		t.Errorf("after Close these still run: %v", left)
	}
}
