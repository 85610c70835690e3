//go:build linux

package pty

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
)

// codexTurn runs one turn answering permission dialogs with the option
// labelled answer, and fails the test unless it ends end_turn. The turn
// gets 20 s, a few times what it takes: a dialog the profile does not
// know leaves the turn on a screen nobody answers, and the test fails on
// the timeout rather than on the profile's 30 s for unknown screens. A
// session's first turn waits for Codex to start as well, which the profile
// bounds with its own start timeout: Codex started with no argument at all
// (through a wrapper that drops them) takes seconds longer to show its
// input box than with any -c override, and on a loaded machine that alone
// has outlasted 20 s.
func codexTurn(t *testing.T, s acp.Session, c *client, text, answer string) string {
	t.Helper()
	c.reset()
	c.answer = choose(answer)
	limit := 20 * time.Second
	if sess := s.(*closer).session; !sess.started {
		limit += time.Duration(sess.p.Start)
	}
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	start := time.Now()
	stop, err := prompt(t, ctx, s, text)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt(%q) = %q, %v; want end_turn; the screen shows:\n%s", text, stop, err,
			lastLines(s.(*closer).session.scr.view().text, 16))
	}
	t.Logf("turn %q took %s", text, time.Since(start).Round(time.Millisecond))
	return c.text()
}

// TestRealCodexTUIEdits drives the pinned Codex TUI in a read-only
// sandbox, where every patch the model sends waits for Codex's "make the
// following edits?" dialog: the codex profile puts it to the editor with
// the files as the title, and types the chosen option back. One session
// takes an allowed edit, a rejected one, an edit allowed for the rest of
// the session and a second edit of that file that does not ask, then an
// edit of two files.
func TestRealCodexTUIEdits(t *testing.T) {
	c := newClient(nil)
	s, _, env := startCodexTUI(t, c, func(bin string, _ *codexenv.Env) []string {
		return []string{bin, "-s", "read-only"}
	})
	file := func(name string) string { return filepath.Join(env.Dir, name) }

	// A later edit proves nothing once one has failed: each would wait
	// out its timeout.
	ok := t.Run("allowed", func(t *testing.T) {
		got := codexTurn(t, s, c, "patch allowed", "Yes, proceed")
		if b, err := os.ReadFile(file("allowed.md")); err != nil || string(b) != "hello\n" {
			t.Errorf("allowed.md = %q, %v; want the patch's content", b, err)
		}
		checkCodexAsked(t, c, file("allowed.md"))
		if want := "Done."; len(got) < len(want) || got[len(got)-len(want):] != want {
			t.Errorf("reply = %q, want it to end with the model's answer %q", got, want)
		}
	})
	ok = ok && t.Run("rejected", func(t *testing.T) {
		codexTurn(t, s, c, "patch rejected", "No, and tell Codex what to do differently")
		if _, err := os.Stat(file("rejected.md")); !os.IsNotExist(err) {
			t.Errorf("the rejected patch was applied (stat: %v)", err)
		}
		checkCodexAsked(t, c, file("rejected.md"))
	})
	ok = ok && t.Run("always", func(t *testing.T) {
		codexTurn(t, s, c, "patch always", "Yes, and don't ask again for these files")
		checkCodexAsked(t, c, file("always.md"))
		asked := len(c.requests())
		// Codex asks no more about that file in this session.
		codexTurn(t, s, c, "patch once more", "")
		if b, err := os.ReadFile(file("always.md")); err != nil || string(b) != "second\n" {
			t.Errorf("always.md = %q, %v; want the second patch applied", b, err)
		}
		if n := len(c.requests()) - asked; n != 0 {
			t.Errorf("%d more permission requests after allowing the file always", n)
		}
	})
	_ = ok && t.Run("two files", func(t *testing.T) {
		codexTurn(t, s, c, "patch two files", "Yes, proceed")
		for _, f := range []string{"one.md", "sub/two.md"} {
			if _, err := os.Stat(file(f)); err != nil {
				t.Errorf("%s was not written: %v", f, err)
			}
		}
		checkCodexAsked(t, c, file("one.md")+", "+file("sub/two.md"))
	})
}
