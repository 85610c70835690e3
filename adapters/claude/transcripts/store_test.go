package transcripts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts/transcriptstest"
	"github.com/acpbridge/acpbridge/bridge/acp"
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

// testStore is a Store under a fresh config dir.
func testStore(t *testing.T) Store { return storeAt(t.TempDir()) }

// storeAt is the Store of a CLI whose CLAUDE_CONFIG_DIR is config, reading
// lines as gjson validates them.
func storeAt(config string) Store {
	return New(func(key string) string {
		if key == "CLAUDE_CONFIG_DIR" {
			return config
		}
		return ""
	}, gjson.ValidBytes)
}

// TestFindAndOwn finds stored transcripts: under the project of cwd (also
// through a symlink, and a long name cut and hashed by the CLI), under any
// other project for Find but not for Own, and never for an id that could
// leave the folder.
func TestFindAndOwn(t *testing.T) {
	config := t.TempDir()
	st := storeAt(config)
	store := func(dir, id string) string {
		t.Helper()
		p := filepath.Join(config, "projects", dir, id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	long := "/" + strings.Repeat("abcdefghij/", 25)
	here := store(ProjectDir(real), "s1")
	hashed := store(ProjectDir(long)[:maxProjectDir]+"-1x2y3z", "s2")
	elsewhere := store(ProjectDir("/other"), "s3")
	if err := os.WriteFile(filepath.Join(config, "secret.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, cwd   string
		find, own string // "" for not found
	}{
		{"s1", real, here, here},
		{"s1", link, here, here},
		{"s2", long, hashed, hashed},
		{"s3", real, elsewhere, ""},
		{"missing", real, "", ""},
		{"../secret", real, "", ""},
		{"", real, "", ""},
	}
	for _, tt := range tests {
		got, err := st.Find(acp.SessionID(tt.id), tt.cwd)
		if got != tt.find || (tt.find == "") != errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("Find(%q, %q) = %q, %v; want %q", tt.id, tt.cwd, got, err, tt.find)
		}
		if got := st.Own(acp.SessionID(tt.id), tt.cwd); got != tt.own {
			t.Errorf("Own(%q, %q) = %q, want %q", tt.id, tt.cwd, got, tt.own)
		}
	}
	files, err := st.Files("")
	if err != nil || len(files) != 3 {
		t.Errorf("Files() = %+v, %v; want the three sessions", files, err)
	}
	if files, err := st.Files(link); err != nil || len(files) != 1 || files[0].Path != here {
		t.Errorf("Files(%q) = %+v, %v; want only %s", link, files, err, here)
	}
	if _, err := (Store{}).Find("s1", real); !errors.Is(err, acp.ErrResourceNotFound) {
		t.Errorf("Find without a home: %v, want resource not found", err)
	}
}

// TestSidecars lists what the CLI keeps beside a session's transcript
// under its id: its folder, file history, shell environments and todos,
// and no other session's.
func TestSidecars(t *testing.T) {
	config := t.TempDir()
	st := storeAt(config)
	todos := filepath.Join(config, "todos")
	if err := os.MkdirAll(todos, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s1-agent-s1.json", "s2-agent-s2.json"} {
		if err := os.WriteFile(filepath.Join(todos, name), []byte("[]"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(config, "projects", "-w", "s1.jsonl")
	got := st.Sidecars("s1", path)
	want := []string{
		filepath.Join(config, "projects", "-w", "s1"),
		filepath.Join(config, "file-history", "s1"),
		filepath.Join(config, "session-env", "s1"),
		filepath.Join(todos, "s1-agent-s1.json"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sidecars:\n got %q\nwant %q", got, want)
	}
}

// TestCursor reads back the cursor of a page's last file, and refuses
// what is not a cursor.
func TestCursor(t *testing.T) {
	f := File{ID: "s1", Path: "/p/s1.jsonl", MTime: 1234567890}
	c := f.Cursor()
	got, err := ParseCursor(&c)
	if err != nil || got == nil || got.ID != f.ID || got.MTime != f.MTime {
		t.Errorf("ParseCursor(%q) = %+v, %v; want %s at %d", c, got, err, f.ID, f.MTime)
	}
	for _, bad := range []string{"not a cursor", "MTIzNA", "MTIzNC8uLi9zZWNyZXQ"} { // "1234", "1234/../secret"
		if _, err := ParseCursor(&bad); !errors.Is(err, acp.ErrInvalidParams) {
			t.Errorf("ParseCursor(%q): %v, want invalid params", bad, err)
		}
	}
	if got, err := ParseCursor(nil); got != nil || err != nil {
		t.Errorf("ParseCursor(nil) = %+v, %v; want the first page", got, err)
	}
}
