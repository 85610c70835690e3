package pty

import (
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// A profile that can read the agent's version names it when the screen no
// longer matches: the user sees which version to write a profile for.
func TestUnknownScreenNamesTheShownVersion(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("old.toml", []byte(`name = "old"
version = "FakeTUI v0"
version_shown = '^FakeTUI (v\d+) · '
idle = '^  \? for shortcuts$'
busy = '^  esc to interrupt$'
quiet = "50ms"
unknown = "400ms"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := fakeSession(t, p, newClient(nil))
	_, err = prompt(t, deadline(t), s, "please run it")
	if want := `(written against FakeTUI v0; the agent shows version v1)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Prompt error = %v; want one containing %q", err, want)
	}
}

// The version the profile was written for is not noted.
func TestVersionNoteOnlyForAnother(t *testing.T) {
	p, err := ParseProfile("v.toml", []byte("name = \"v\"\nversion = \"FakeTUI v1\"\nversion_shown = '^FakeTUI (v\\d+)'\nidle = '^x$'\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &session{p: p}
	if got := s.versionNote("FakeTUI v1 · ready"); got != "" {
		t.Errorf("note for the profile's own version = %q, want none", got)
	}
	if got, want := s.versionNote("FakeTUI v2 · ready"), "; the agent shows version v2"; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
}

// A screen that matched nothing since before the prompt was typed is given
// the profile's unknown window from the prompt on: the agent must see the
// prompt before the turn fails, or the prompt is left typed in its input
// box (seen with a stale profile for Claude Code).
func TestUnknownCountsFromThePrompt(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c)
	if stop, err := prompt(t, deadline(t), s, "hi"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("first prompt = %q, %v", stop, err)
	}
	sess := s.(*closer).session
	q := *sess.p
	if err := q.Idle.UnmarshalText([]byte(`^never$`)); err != nil {
		t.Fatal(err)
	}
	q.Unknown = Duration(300 * time.Millisecond)
	sess.p = &q
	// The condition under test: the screen has been unchanged for longer
	// than the unknown window when the prompt is typed.
	for time.Since(sess.scr.view().last) < 2*time.Duration(q.Unknown) {
		select {
		case <-sess.scr.changed:
		case <-time.After(tick):
		}
	}
	_, err := prompt(t, deadline(t), s, "hello there")
	if err == nil || !strings.Contains(err.Error(), "You said: hello there") {
		t.Fatalf("Prompt error = %v; want the unknown screen after the agent answered", err)
	}
}
