package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDescribe builds a small git history and checks the version each
// state of it is given: untagged, dirty, tagged, tagged and dirty.
func TestDescribe(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to describe a tree:", err)
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2026-01-02T03:04:05+01:00", "GIT_COMMITTER_DATE=2026-01-02T03:04:05+01:00")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if v, rev, date := describe(dir); v != "v0.0.0-dev" || rev != "unknown" || date != "unknown" {
		t.Errorf("outside git: %q %q %q", v, rev, date)
	}
	run("init", "-q")
	write("a", "1")
	run("add", "a")
	run("commit", "-q", "-m", "one")
	rev := run("rev-parse", "HEAD")
	short := rev[:12]

	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"untagged", func() {}, "v0.0.0-dev+" + short},
		{"untracked file", func() { write("b", "2") }, "v0.0.0-dev+" + short + ".dirty"},
		{"not a release tag", func() { os.Remove(filepath.Join(dir, "b")); run("tag", "nightly") }, "v0.0.0-dev+" + short},
		{"release tag", func() { run("tag", "v1.2.3") }, "v1.2.3"},
		{"the highest of two tags", func() { run("tag", "v1.10.0") }, "v1.10.0"},
		{"tagged, changed", func() { write("a", "changed") }, "v1.10.0+dirty"},
	}
	for _, s := range steps {
		s.change()
		v, gotRev, date := describe(dir)
		if v != s.want {
			t.Errorf("%s: version %q, want %q", s.name, v, s.want)
		}
		if gotRev != rev {
			t.Errorf("%s: commit %q, want %q", s.name, gotRev, rev)
		}
		if date != "2026-01-02T02:04:05Z" {
			t.Errorf("%s: date %q, want the commit's in UTC", s.name, date)
		}
	}
}
