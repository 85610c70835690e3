package transcripts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts/transcriptstest"
)

func TestProjectDir(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/dev/project", "-home-dev-project"},
		{"/home/dev/my_project.v2", "-home-dev-my-project-v2"},
		{"/tmp/é", "-tmp--"},             // one UTF-16 unit
		{"/tmp/😀", "-tmp---"},            // two UTF-16 units
		{`C:\Users\dev`, "C--Users-dev"}, // as the CLI names it on Windows
	}
	for _, tt := range tests {
		if got := ProjectDir(tt.cwd); got != tt.want {
			t.Errorf("ProjectDir(%q) = %q, want %q", tt.cwd, got, tt.want)
		}
	}
	long := "/" + strings.Repeat("abcdefghij/", 25)
	name := ProjectDir(long)
	if !matchesProject(name[:maxProjectDir]+"-1x2y3z", []string{name}) {
		t.Error("a long project dir with the CLI's hash suffix does not match")
	}
	if matchesProject(name[:maxProjectDir], []string{name}) || matchesProject("-other", []string{name}) {
		t.Error("a long project dir matches a wrong name")
	}
}

// TestReadMetaLargeFile reads the title of a transcript larger than the
// head that is read whole: the prompt comes from the head, a title written
// at the end from the tail.
func TestReadMetaLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	filler := fmt.Sprintf(`{"type":"progress","uuid":"p","parentUuid":"u1","data":%q}`, strings.Repeat("x", 64<<10))
	lines := []string{transcriptstest.Entry("user", "u1", "", "/w", `"the first prompt"`)}
	for range (metaHead + metaTail) / (64 << 10) {
		lines = append(lines, filler)
	}
	write := func(lines []string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	title := func() string {
		t.Helper()
		m, err := testStore(t).ReadMeta(path)
		if err != nil || m.Cwd != "/w" {
			t.Fatalf("meta: %+v, %v", m, err)
		}
		return m.Title()
	}
	write(lines)
	if got := title(); got != "the first prompt" {
		t.Errorf("title %q", got)
	}
	write(append(lines, `{"type":"custom-title","customTitle":"At the end"}`))
	if got := title(); got != "At the end" {
		t.Errorf("title %q, want the one at the end", got)
	}
}

func TestCleanTitle(t *testing.T) {
	long := strings.Repeat("word ", 100)
	got := CleanTitle(long)
	if n := len([]rune(got)); n != maxTitle || !strings.HasSuffix(got, "…") {
		t.Errorf("long title has %d runes: %q", n, got)
	}
	if got := CleanTitle(" a\n\tb  "); got != "a b" {
		t.Errorf("CleanTitle = %q", got)
	}
}

// testStore is a Store under a fresh config dir, reading lines as gjson
// validates them.
func testStore(t *testing.T) Store {
	config := t.TempDir()
	return New(func(key string) string {
		if key == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}, gjson.ValidBytes)
}
