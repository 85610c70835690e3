package pty

import (
	"strings"
	"testing"
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
