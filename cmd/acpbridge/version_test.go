package main

import (
	"bytes"
	"testing"
)

// TestVersionStamped checks that what the build stamps is what --version
// prints and what initialize tells the editor.
func TestVersionStamped(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"

	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"acpbridge", "--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	want := "acpbridge version v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-01-02T03:04:05Z)\n"
	if stdout.String() != want {
		t.Errorf("--version printed %q, want %q", stdout.String(), want)
	}
	if got := semver(); got != "v1.2.3" {
		t.Errorf("agent version %q, want v1.2.3", got)
	}
}
