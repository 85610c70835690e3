package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestMachineScrubber(t *testing.T) {
	m := machine{
		osName: "Linux", osRelease: "6.1.0-42-amd64", host: "buildbox", user: "alice",
		paths: []string{"/home/alice", "/srv/src/acpbridge", "/srv/src/acpbridge/.cache/claude/bin", "/", "/tmp"},
	}
	tests := []struct {
		name, authored, in, want string
	}{
		{"kernel in prose", "", "OS: Linux 6.1.0-42-amd64 (x)", "OS: Linux (x)"},
		{"bare release", "", "release 6.1.0-42-amd64", "release " + placeRelease},
		{"host and user as words", "", "alice@buildbox:~$ whoami\nalice", "user@host:~$ whoami\nuser"},
		{"names inside words stay", "", "malice buildboxes", "malice buildboxes"},
		{"authored word stays", "alice wrote this", "alice@buildbox", "alice@host"},
		{"recorder paths", "", "/home/alice/.npmrc and /srv/src/acpbridge/.cache/claude/bin/claude", "/home/user/.npmrc and /home/user/claude"},
		{"root and tmp untouched", "", "/tmp/x /usr/bin", "/tmp/x /usr/bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.scrubber(tt.authored)(tt.in); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// recordedDirs hold what the recorder writes and what is derived from it
// (the goldens replayed from recordings), relative to this package.
var recordedDirs = []string{"../../../fixtures/claude", "../../../adapters/claude/testdata",
	"../../../fixtures/gemini", "../../../fixtures/qwen", "../../../fixtures/opencode", "../../../fixtures/copilot", "../../../fixtures/codex", "../../../fixtures/pty"}

// TestRecordingsHoldNoMachineValues fails when a committed recording, or a
// golden derived from one, carries a value of the machine that made it: a
// kernel release (by its shape, so a recording from any machine is
// caught), or this machine's kernel, host name, user name, home directory
// or checkout path. Recordings made here must pass it by construction;
// ones made elsewhere are caught by the shapes.
func TestRecordingsHoldNoMachineValues(t *testing.T) {
	m := thisMachine("")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(filepath.Dir(filepath.Dir(wd)))
	home, _ := os.UserHomeDir()
	var authored strings.Builder
	scen, _ := filepath.Glob(filepath.Join("..", "..", "..", "fixtures", "scenarios", "*", "*.json"))
	for _, p := range scen {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		authored.Write(b)
	}
	type check struct {
		what string
		re   *regexp.Regexp
	}
	checks := []check{
		// "OS Version: Linux 6.18.44-..." or "Darwin 23.1.0": a kernel name
		// followed by a release number.
		{"a kernel release", regexp.MustCompile(`\b(Linux|Darwin|FreeBSD|Windows_NT) \d+\.\d+`)},
		{"an OS version other than the placeholder", regexp.MustCompile(`OS Version: (?:[^L\\]|L[^i]|Linux[^\\"])`)},
		{"an osVersion other than the placeholder", regexp.MustCompile(`"osVersion":"(?:[^"L]|L[^i]|Linux[^"])`)},
	}
	literal := func(what, v string) {
		if len(v) > 1 && v != placeTmp {
			checks = append(checks, check{what + " " + v, regexp.MustCompile(regexp.QuoteMeta(v))})
		}
	}
	word := func(what, v string) {
		if v != "" && v != placeUser && v != placeHost && v != "localhost" && !wordIn(v, authored.String()) {
			checks = append(checks, check{what + " " + v, regexp.MustCompile(`\b` + regexp.QuoteMeta(v) + `\b`)})
		}
	}
	literal("this machine's kernel release", m.osRelease)
	literal("this machine's home", home)
	literal("this checkout's path", repo)
	// The pinned CLIs name their install directory; .cache may link
	// outside the checkout.
	if r, err := filepath.EvalSymlinks(filepath.Join(repo, ".cache")); err == nil {
		literal("the pinned CLIs' real directory", r)
	}
	if tmp := os.TempDir(); !strings.HasPrefix(placeProject, tmp) {
		literal("this machine's temp dir", tmp)
	}
	word("this machine's host name", m.host)
	word("this machine's user name", m.user)

	files := 0
	for _, dir := range recordedDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, string(filepath.Separator)+"scenarios"+string(filepath.Separator)) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			// Codex's names of its agents (/root, /root/NAME) are not a
			// home of /root.
			data = codexAgentPath.ReplaceAll(data, []byte(`"agentPath":""`))
			for _, c := range checks {
				if loc := c.re.FindIndex(data); loc != nil {
					from, to := max(0, loc[0]-60), min(len(data), loc[1]+60)
					t.Errorf("%s holds %s: ...%s...", path, c.what, data[from:to])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 20 {
		t.Fatalf("only %d recorded files under %v", files, recordedDirs)
	}
}

// TestRunDirsOutsideCheckout: with TMPDIR inside a git checkout the CLI
// would report the checkout's branch and status, so the recorder refuses.
func TestRunDirsOutsideCheckout(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(repo, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	if d, err := newRunDirs(); err == nil {
		os.RemoveAll(d.root)
		t.Fatalf("run dirs made at %s, inside the checkout %s", d.root, repo)
	} else if !strings.Contains(err.Error(), "TMPDIR") {
		t.Errorf("error %q does not say what to do", err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil || len(entries) != 0 {
		t.Errorf("left behind in TMPDIR: %v %v", entries, err)
	}

	t.Setenv("TMPDIR", t.TempDir())
	d, err := newRunDirs()
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(d.root)
}

// codexAgentPath matches a Codex sub-agent's task path in a recording.
var codexAgentPath = regexp.MustCompile(`"agentPath": ?"/root(?:/[^"]*)?"`)
