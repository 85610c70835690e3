package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// listPageSize is how many sessions one session/list page holds.
const listPageSize = 50

// ListSessions lists the sessions stored by the CLI, newest first (by the
// transcript's modification time), optionally only those run in req.Cwd.
// Pages are cut at listPageSize; the cursor names the last session of a page
// (its time and id), so sessions written between two calls neither repeat
// nor shift later pages.
func (a *Adapter) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	cwd := ""
	if req.Cwd != nil && *req.Cwd != "" {
		if !filepath.IsAbs(*req.Cwd) {
			return acp.ListSessionsResponse{}, acp.InvalidParams("cwd", "must be an absolute path")
		}
		cwd = filepath.Clean(*req.Cwd)
	}
	after, err := parseCursor(req.Cursor)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	files, err := a.store.files(cwd)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	slices.SortFunc(files, newestFirst)
	if after != nil {
		i, found := slices.BinarySearchFunc(files, *after, newestFirst)
		if found {
			i++
		}
		files = files[i:]
	}
	res := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return acp.ListSessionsResponse{}, err
		}
		if len(res.Sessions) == listPageSize {
			res.NextCursor = acp.Ptr(formatCursor(files[i-1]))
			break
		}
		info, ok := a.sessionInfo(f, cwd)
		if ok {
			res.Sessions = append(res.Sessions, info)
		}
	}
	return res, nil
}

// newestFirst orders transcripts by modification time, newest first, then
// by id.
func newestFirst(x, y storedFile) int {
	switch {
	case x.mtime > y.mtime:
		return -1
	case x.mtime < y.mtime:
		return 1
	}
	return strings.Compare(string(x.id), string(y.id))
}

// sessionInfo reads what a listing shows of one transcript. A file without
// a conversation (no entry with a cwd) or, with a filter, from another
// directory whose name sanitizes the same way, is left out.
func (a *Adapter) sessionInfo(f storedFile, cwd string) (acp.SessionInfo, bool) {
	m, err := readSessionMeta(f.path)
	if err != nil {
		a.opts.Logger.Debug().Err(err).Str("path", f.path).Msg("skipping unreadable claude transcript")
		return acp.SessionInfo{}, false
	}
	if m.cwd == "" || (cwd != "" && !sameDir(m.cwd, cwd)) {
		return acp.SessionInfo{}, false
	}
	info := acp.SessionInfo{
		SessionID: f.id,
		Cwd:       m.cwd,
		UpdatedAt: acp.Ptr(isoTime(time.Unix(0, f.mtime))),
	}
	if t := m.title(); t != "" {
		info.Title = acp.Ptr(t)
	}
	return info, true
}

// sameDir compares a recorded working directory with a filter, also through
// symlinks (the CLI records its resolved directory).
func sameDir(recorded, cwd string) bool {
	if filepath.Clean(recorded) == cwd {
		return true
	}
	real, err := filepath.EvalSymlinks(cwd)
	return err == nil && filepath.Clean(recorded) == real
}

// parseCursor decodes a cursor of formatCursor; nil means the first page.
func parseCursor(c *string) (*storedFile, error) {
	if c == nil || *c == "" {
		return nil, nil
	}
	bad := acp.InvalidParams("cursor", "not a cursor of this agent's session/list")
	raw, err := base64.RawURLEncoding.DecodeString(*c)
	if err != nil {
		return nil, bad
	}
	t, id, ok := strings.Cut(string(raw), "/")
	n, err := strconv.ParseInt(t, 10, 64)
	if !ok || err != nil || !validSessionID(acp.SessionID(id)) {
		return nil, bad
	}
	return &storedFile{id: acp.SessionID(id), mtime: n}, nil
}

func formatCursor(f storedFile) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(f.mtime, 10) + "/" + string(f.id)))
}

// sessionMeta is what a listing needs from a transcript.
type sessionMeta struct {
	cwd    string
	prompt string // the first prompt the user typed
	// Titles the CLI stores (last one wins): set with /rename, generated,
	// or a summary line of older versions.
	custom, generated, summary string
}

func (m *sessionMeta) title() string {
	for _, t := range []string{m.custom, m.generated, m.summary, m.prompt} {
		if t = cleanTitle(t); t != "" {
			return t
		}
	}
	return ""
}

// Reading limits for a listing: the head of a transcript holds its cwd and
// first prompt, the tail the latest title lines (the CLI writes them again
// when a session is resumed). Files up to metaHead bytes are read whole.
const (
	metaHead = 1 << 20
	metaTail = 256 << 10
)

// readSessionMeta reads a transcript's head, and its tail when the head was
// not all of it.
func readSessionMeta(path string) (sessionMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return sessionMeta{}, err
	}
	defer f.Close()
	var m sessionMeta
	n, err := m.scan(io.LimitReader(f, metaHead))
	if err != nil {
		return m, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() <= n {
		return m, err
	}
	off := max(n, fi.Size()-metaTail)
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return m, err
	}
	br := bufio.NewReader(f)
	if off > n { // skip the partial first line
		for {
			_, err := br.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return m, nil
			}
		}
	}
	_, err = m.scan(br)
	return m, err
}

// scan reads lines until EOF and returns the bytes it consumed.
func (m *sessionMeta) scan(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		n += int64(len(line))
		m.line(bytes.TrimSpace(line))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("reading transcript: %w", err)
		}
	}
}

// line takes what it can from one transcript line.
func (m *sessionMeta) line(line []byte) {
	if len(line) == 0 || !validJSON(line) {
		return
	}
	root := gjson.ParseBytes(line)
	switch root.Get("type").String() {
	case "custom-title":
		m.custom = orDefault(root.Get("customTitle").String(), m.custom)
	case "ai-title":
		m.generated = orDefault(root.Get("aiTitle").String(), m.generated)
	case "summary":
		m.summary = orDefault(root.Get("summary").String(), m.summary)
	case "user":
		if m.cwd == "" {
			m.cwd = root.Get("cwd").String()
		}
		if m.prompt == "" && !hiddenEntry(root, false) && !root.Get("isCompactSummary").Bool() {
			m.prompt = promptText(root.Get("message.content"))
		}
	default:
		if m.cwd == "" && root.Get("uuid").Exists() {
			m.cwd = root.Get("cwd").String()
		}
	}
}
