package claude

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

// store is the CLI's own session storage, which session/load, resume and
// list read: one JSONL transcript per session at
// <config dir>/projects/<project dir>/<session id>.jsonl, where the config
// dir is $CLAUDE_CONFIG_DIR (else ~/.claude) as the CLI itself sees it and
// the project dir is the session's working directory, sanitized. The
// adapter only reads these files; the CLI writes them.
type store struct {
	projects string // <config dir>/projects; "" when there is no home
}

// newStore locates the storage of a CLI started with os.Environ() plus env
// (later entries win, as for the CLI's own process).
func newStore(env []string) store {
	dir := lookupEnv(env, "CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := lookupEnv(env, "HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return store{}
			}
		}
		dir = filepath.Join(home, ".claude")
	}
	return store{projects: filepath.Join(dir, "projects")}
}

// lookupEnv is key's value in os.Environ() followed by env.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return os.Getenv(key)
}

// maxProjectDir is the longest project directory name the CLI writes as is;
// longer names are cut there and get a hash suffix we cannot compute (the
// CLI's runtime hash), so they are matched by prefix.
const maxProjectDir = 200

// projectDir is the CLI's name for the directory of a working directory:
// every character other than an ASCII letter or digit becomes '-', counted
// in UTF-16 code units as the CLI (JavaScript) counts them.
func projectDir(cwd string) string {
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
	names := []string{projectDir(cwd)}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		names = append(names, projectDir(real))
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

// find returns the transcript of a session: first where a session run in
// cwd is stored, then in any project (the session may have been started
// elsewhere, as the SDKs' lookup allows). An unknown id is an error
// wrapping acp.ErrResourceNotFound.
func (st store) find(id acp.SessionID, cwd string) (string, error) {
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

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// storedFile is a transcript found by a listing, before it is read.
type storedFile struct {
	id    acp.SessionID
	path  string
	mtime int64 // UnixNano
}

// files lists the stored transcripts, only those of projects that match cwd
// when it is not empty. A session stored twice (under two projects) is
// listed once, with its newest file.
func (st store) files(cwd string) ([]storedFile, error) {
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
	var out []storedFile
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
			f := storedFile{id: id, path: filepath.Join(dir, e.Name()), mtime: fi.ModTime().UnixNano()}
			if i, dup := seen[id]; dup {
				if f.mtime > out[i].mtime {
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

// cleanTitle makes one line of at most maxTitle runes of s.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxTitle {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:maxTitle-1])) + "…"
}
