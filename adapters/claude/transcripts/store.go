package transcripts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Store is the CLI's own session storage, which session/load, resume and
// list read: one JSONL transcript per session at
// <config dir>/projects/<project dir>/<session id>.jsonl, where the config
// dir is $CLAUDE_CONFIG_DIR (else ~/.claude) as the CLI itself sees it and
// the project dir is the session's working directory, sanitized. The
// adapter only reads these files; the CLI writes them. A Store is a value,
// safe for concurrent use.
type Store struct {
	projects string            // <config dir>/projects; "" when there is no home
	valid    func([]byte) bool // the lines that are JSON to read
}

// New locates the storage of a CLI whose environment getenv reads.
// valid tells the lines of a transcript that are JSON gjson may read from
// those it skips. It must bound nesting (gjson.Valid recurses without
// limit, and a line of millions of brackets kills the process); the engine
// passes the check it gives the CLI's stdout, so a stored line is read by
// the rule its live twin was.
func New(getenv func(key string) string, valid func([]byte) bool) Store {
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return Store{valid: valid}
			}
		}
		dir = filepath.Join(home, ".claude")
	}
	return Store{projects: filepath.Join(dir, "projects"), valid: valid}
}

// ConfigDir is the CLI's config dir, or "" when there is no home to find
// it in.
func (st Store) ConfigDir() string {
	if st.projects == "" {
		return ""
	}
	return filepath.Dir(st.projects)
}

// maxProjectDir is the longest project directory name the CLI writes as is;
// longer names are cut there and get a hash suffix we cannot compute (the
// CLI's runtime hash), so they are matched by prefix.
const maxProjectDir = 200

// ProjectDir is the CLI's name for the folder of a working directory, in
// projects/ and wherever else the CLI keeps files by project (the task
// output of its shells):
// every character other than an ASCII letter or digit becomes '-', counted
// in UTF-16 code units as the CLI (JavaScript) counts them.
func ProjectDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xffff:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// projectDirs are the directory names a session run in cwd may be stored
// under: the CLI names it after its resolved working directory (getcwd), so
// a cwd through a symlink is tried both ways.
func projectDirs(cwd string) []string {
	names := []string{ProjectDir(cwd)}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		names = append(names, ProjectDir(real))
	}
	return names
}

// matchesProject reports whether a directory name under projects/ is one
// of names (cut and hashed when too long).
func matchesProject(dir string, names []string) bool {
	for _, n := range names {
		if len(n) <= maxProjectDir {
			if dir == n {
				return true
			}
		} else if strings.HasPrefix(dir, n[:maxProjectDir]+"-") {
			return true
		}
	}
	return false
}

// validSessionID reports whether id can name a transcript file. Claude
// session ids are UUIDs; anything that could leave the directory is
// refused.
func validSessionID(id acp.SessionID) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range string(id) {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Find returns the transcript of a session: first where a session run in
// cwd is stored, then in any project (the session may have been started
// elsewhere, as the SDKs' lookup allows). An unknown id is an error
// wrapping acp.ErrResourceNotFound.
func (st Store) Find(id acp.SessionID, cwd string) (string, error) {
	notFound := fmt.Errorf("%w: no stored Claude Code session %s", acp.ErrResourceNotFound, id)
	if st.projects == "" || !validSessionID(id) {
		return "", notFound
	}
	dirs, err := os.ReadDir(st.projects)
	if errors.Is(err, fs.ErrNotExist) {
		return "", notFound
	}
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %v", acp.ErrInternal, st.projects, err)
	}
	names := projectDirs(cwd)
	var other []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p := filepath.Join(st.projects, d.Name(), string(id)+".jsonl")
		if matchesProject(d.Name(), names) {
			if isFile(p) {
				return p, nil
			}
			continue
		}
		other = append(other, p)
	}
	for _, p := range other {
		if isFile(p) {
			return p, nil
		}
	}
	return "", notFound
}

// Own returns the transcript of a session this adapter runs in cwd, or ""
// when the CLI has not written one. The CLI runs in cwd, so only the
// project folders of cwd are looked at: a turn must not scan every project
// the user has.
func (st Store) Own(id acp.SessionID, cwd string) string {
	if st.projects == "" || !validSessionID(id) {
		return ""
	}
	for _, n := range projectDirs(cwd) {
		if len(n) > maxProjectDir {
			p, _ := st.Find(id, cwd) // hashed name: matched by prefix
			return p
		}
		if p := filepath.Join(st.projects, n, string(id)+".jsonl"); isFile(p) {
			return p
		}
	}
	return ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// File is a transcript found by a listing, before it is read.
type File struct {
	ID    acp.SessionID
	Path  string
	MTime int64 // modification time, UnixNano
}

// Files lists the stored transcripts, only those of projects that match cwd
// when it is not empty. A session stored twice (under two projects) is
// listed once, with its newest file.
func (st Store) Files(cwd string) ([]File, error) {
	if st.projects == "" {
		return nil, nil
	}
	dirs, err := os.ReadDir(st.projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", acp.ErrInternal, st.projects, err)
	}
	var names []string
	if cwd != "" {
		names = projectDirs(cwd)
	}
	seen := map[acp.SessionID]int{}
	var out []File
	for _, d := range dirs {
		if !d.IsDir() || (names != nil && !matchesProject(d.Name(), names)) {
			continue
		}
		dir := filepath.Join(st.projects, d.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // removed meanwhile, or unreadable: not ours to list
		}
		for _, e := range entries {
			id := acp.SessionID(strings.TrimSuffix(e.Name(), ".jsonl"))
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") || !validSessionID(id) {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			f := File{ID: id, Path: filepath.Join(dir, e.Name()), MTime: fi.ModTime().UnixNano()}
			if i, dup := seen[id]; dup {
				if f.MTime > out[i].MTime {
					out[i] = f
				}
				continue
			}
			seen[id] = len(out)
			out = append(out, f)
		}
	}
	return out, nil
}

// maxTitle is the longest title a listing shows, in runes.
const maxTitle = 200

// CleanTitle makes a session title of s: one line of at most maxTitle
// (200) runes.
func CleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxTitle {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:maxTitle-1])) + "…"
}

// Sidecars are the files and folders the CLI keeps for session id, besides
// its transcript at path, which deleting the session removes: the folder
// next to the transcript (sub-agent transcripts, large tool results), the
// file-edit history, the shell environment snapshots and the todo lists.
// Each may be missing.
func (st Store) Sidecars(id acp.SessionID, path string) []string {
	s := string(id)
	out := []string{strings.TrimSuffix(path, ".jsonl")} // subagents/, tool-results/
	dir := filepath.Dir(st.projects)
	out = append(out,
		filepath.Join(dir, "file-history", s),
		filepath.Join(dir, "session-env", s),
	)
	todos, _ := filepath.Glob(filepath.Join(dir, "todos", s+"-*.json"))
	return append(out, todos...)
}
