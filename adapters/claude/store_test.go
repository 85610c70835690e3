package claude

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/adapters/claude/transcripts/transcriptstest"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// TestStoreLocation checks that transcripts are read where the CLI, started
// with the adapter's environment, writes them.
func TestStoreLocation(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", "/home/process")
	tests := []struct {
		name    string
		process string // CLAUDE_CONFIG_DIR of this process
		env     []string
		want    string
	}{
		{"home", "", nil, "/home/process/.claude"},
		{"home from options", "", []string{"HOME=/home/opt"}, "/home/opt/.claude"},
		{"config dir from options", "", []string{"HOME=/home/opt", "CLAUDE_CONFIG_DIR=/cfg"}, "/cfg"},
		{"later entries win", "", []string{"CLAUDE_CONFIG_DIR=/a", "CLAUDE_CONFIG_DIR=/b"}, "/b"},
		{"inherited config dir", "/inherited", []string{"HOME=/home/opt"}, "/inherited"},
		{"options override inherited", "/inherited", []string{"CLAUDE_CONFIG_DIR=/cfg"}, "/cfg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CLAUDE_CONFIG_DIR", tt.process)
			if got := newStore(tt.env).ConfigDir(); got != tt.want {
				t.Errorf("config dir %q, want %q", got, tt.want)
			}
		})
	}
}

// writeSession stores a synthetic transcript with a given modification time.
func writeSession(t *testing.T, config, cwd, id string, mtime time.Time, lines ...string) {
	t.Helper()
	dir := filepath.Join(config, "projects", transcripts.ProjectDir(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestListSessions(t *testing.T) {
	config := t.TempDir()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	queue := `{"type":"queue-operation","operation":"enqueue","sessionId":"s"}`
	writeSession(t, config, "/w/one", "a", t0.Add(5*time.Second), queue,
		transcriptstest.Entry("user", "u1", "", "/w/one", `"  Fix the\n  login   bug  "`),
		transcriptstest.Entry("assistant", "a1", "u1", "/w/one", `[{"type":"text","text":"Done."}]`))
	writeSession(t, config, "/w/one", "b", t0.Add(4*time.Second),
		transcriptstest.Entry("user", "u1", "", "/w/one", `[{"type":"text","text":"first prompt"}]`),
		`{"type":"ai-title","aiTitle":"Generated title","sessionId":"b"}`,
		`{"type":"custom-title","customTitle":"Old name","sessionId":"b"}`,
		`{"type":"custom-title","customTitle":"Renamed","sessionId":"b"}`)
	writeSession(t, config, "/w/two", "c", t0.Add(3*time.Second),
		transcriptstest.Entry("user", "m1", "", "/w/two", `"<local-command-caveat>Caveat</local-command-caveat>"`, `"isMeta":true`),
		transcriptstest.Entry("user", "u1", "m1", "/w/two", `"<command-name>/init</command-name>\n<command-message>init</command-message>\n<command-args></command-args>"`))
	writeSession(t, config, "/w/my-project", "d", t0.Add(2*time.Second),
		transcriptstest.Entry("user", "u1", "", "/w/my-project", `[{"type":"tool_result","tool_use_id":"x","content":"r"}]`),
		`{"type":"summary","summary":"Summary line","leafUuid":"u1"}`)
	// Sanitized like /w/my-project, stored in the same directory.
	writeSession(t, config, "/w/my/project", "e", t0.Add(1*time.Second),
		transcriptstest.Entry("user", "u1", "", "/w/my/project", `"[Request interrupted by user]"`))
	writeSession(t, config, "/w/one", "f", t0.Add(6*time.Second), queue) // no conversation
	if err := os.WriteFile(filepath.Join(config, "projects", transcripts.ProjectDir("/w/one"), "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Logger: testLogger(t)})
	type row struct{ id, cwd, title, updated string }
	list := func(cwd string) []row {
		t.Helper()
		req := acp.ListSessionsRequest{}
		if cwd != "" {
			req.Cwd = &cwd
		}
		res, err := a.ListSessions(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.NextCursor != nil {
			t.Errorf("a short list has a next cursor")
		}
		var out []row
		for _, s := range res.Sessions {
			r := row{id: string(s.SessionID), cwd: s.Cwd}
			if s.Title != nil {
				r.title = *s.Title
			}
			if s.UpdatedAt != nil {
				r.updated = *s.UpdatedAt
			}
			out = append(out, r)
		}
		return out
	}
	at := func(s int) string { return t0.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
	want := []row{
		{"a", "/w/one", "Fix the login bug", at(5)},
		{"b", "/w/one", "Renamed", at(4)},
		{"c", "/w/two", "/init", at(3)},
		{"d", "/w/my-project", "Summary line", at(2)},
		{"e", "/w/my/project", "", at(1)},
	}
	for i := range want {
		// RFC 3339 with milliseconds, as written.
		want[i].updated = strings.Replace(want[i].updated, "Z", ".000Z", 1)
	}
	if got := list(""); !slices.Equal(got, want) {
		t.Errorf("all sessions:\n got %q\nwant %q", got, want)
	}
	if got := list("/w/one"); !slices.Equal(got, want[:2]) {
		t.Errorf("sessions in /w/one:\n got %q\nwant %q", got, want[:2])
	}
	if got := list("/w/my-project/"); !slices.Equal(got, want[3:4]) {
		t.Errorf("sessions in /w/my-project:\n got %q\nwant %q", got, want[3:4])
	}
	if got := list("/w/none"); len(got) != 0 {
		t.Errorf("sessions in /w/none: %q", got)
	}

	rel := "w/one"
	if _, err := a.ListSessions(t.Context(), acp.ListSessionsRequest{Cwd: &rel}); !errors.Is(err, acp.ErrInvalidParams) {
		t.Errorf("relative cwd: %v", err)
	}
	bad := "not a cursor"
	if _, err := a.ListSessions(t.Context(), acp.ListSessionsRequest{Cursor: &bad}); !errors.Is(err, acp.ErrInvalidParams) {
		t.Errorf("bad cursor: %v", err)
	}
	empty, err := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + t.TempDir()}}).ListSessions(t.Context(), acp.ListSessionsRequest{})
	if err != nil || empty.Sessions == nil || len(empty.Sessions) != 0 {
		t.Errorf("no stored sessions: %+v, %v", empty, err)
	}
}

// TestListSessionsPages lists more sessions than a page holds, with a
// session written between two pages: every session is listed once, newest
// first, and the new one does not shift later pages.
func TestListSessionsPages(t *testing.T) {
	config := t.TempDir()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const n = 2*listPageSize + 20
	for i := range n {
		id := fmt.Sprintf("s%03d", i)
		// Pairs share a modification time: ties are ordered by id.
		writeSession(t, config, "/w", id, t0.Add(time.Duration(i/2)*time.Second),
			transcriptstest.Entry("user", "u", "", "/w", fmt.Sprintf("%q", "prompt "+id)))
	}
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Logger: testLogger(t)})
	var got []string
	var sizes []int
	var cursor *string
	for page := 0; ; page++ {
		res, err := a.ListSessions(t.Context(), acp.ListSessionsRequest{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(res.Sessions))
		for _, s := range res.Sessions {
			got = append(got, string(s.SessionID))
		}
		if page == 0 {
			writeSession(t, config, "/w", "new", t0.Add(time.Hour), transcriptstest.Entry("user", "u", "", "/w", `"late"`))
		}
		if res.NextCursor == nil {
			break
		}
		cursor = res.NextCursor
	}
	var want []string
	for i := n - 1; i >= 0; i -= 2 {
		want = append(want, fmt.Sprintf("s%03d", i-1), fmt.Sprintf("s%03d", i))
	}
	if !slices.Equal(sizes, []int{listPageSize, listPageSize, 20}) || !slices.Equal(got, want) {
		t.Errorf("pages of %v:\n got %v\nwant %v", sizes, got, want)
	}
}
