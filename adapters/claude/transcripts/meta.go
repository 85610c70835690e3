package transcripts

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// NewestFirst orders transcripts by modification time, newest first, then
// by id: the order of a listing, which its cursors follow.
func NewestFirst(x, y File) int {
	switch {
	case x.MTime > y.MTime:
		return -1
	case x.MTime < y.MTime:
		return 1
	}
	return strings.Compare(string(x.ID), string(y.ID))
}

// ParseCursor decodes a cursor of File.Cursor: the file a page ended with
// (its ID and MTime), or nil for the first page. A cursor that is not one
// is an error wrapping acp.ErrInvalidParams.
func ParseCursor(c *string) (*File, error) {
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
	return &File{ID: acp.SessionID(id), MTime: n}, nil
}

// Cursor names f as the last session of a listing's page (its time and
// id), so sessions written between two pages neither repeat nor shift
// later pages.
func (f File) Cursor() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(f.MTime, 10) + "/" + string(f.ID)))
}

// Meta is what a listing needs from a transcript.
type Meta struct {
	// Cwd is the working directory the session ran in; "" for a file
	// without a conversation.
	Cwd    string
	prompt string // the first prompt the user typed
	// Titles the CLI stores (last one wins): set with /rename, generated,
	// or a summary line of older versions.
	custom, generated, summary string
}

// Title is the session's title: the last one the CLI stored, else the
// first prompt the user typed, else "".
func (m Meta) Title() string {
	for _, t := range []string{m.custom, m.generated, m.summary, m.prompt} {
		if t = CleanTitle(t); t != "" {
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

// ReadMeta reads what a listing shows of the transcript at path: its head,
// and its tail when the head was not all of it.
func (st Store) ReadMeta(path string) (Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	m := metaReader{valid: st.valid}
	n, err := m.scan(io.LimitReader(f, metaHead))
	if err != nil {
		return m.Meta, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() <= n {
		return m.Meta, err
	}
	off := max(n, fi.Size()-metaTail)
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return m.Meta, err
	}
	br := bufio.NewReader(f)
	if off > n { // skip the partial first line
		for {
			_, err := br.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return m.Meta, nil
			}
		}
	}
	_, err = m.scan(br)
	return m.Meta, err
}

// metaReader collects a Meta from transcript lines.
type metaReader struct {
	Meta
	valid func([]byte) bool
}

// scan reads lines until EOF and returns the bytes it consumed.
func (m *metaReader) scan(r io.Reader) (int64, error) {
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
func (m *metaReader) line(line []byte) {
	if len(line) == 0 || !m.valid(line) {
		return
	}
	root := gjson.ParseBytes(line)
	switch root.Get("type").String() {
	case "custom-title":
		m.custom = cmp.Or(root.Get("customTitle").String(), m.custom)
	case "ai-title":
		m.generated = cmp.Or(root.Get("aiTitle").String(), m.generated)
	case "summary":
		m.summary = cmp.Or(root.Get("summary").String(), m.summary)
	case "user":
		if m.Cwd == "" {
			m.Cwd = root.Get("cwd").String()
		}
		if m.prompt == "" && !hiddenEntry(root, false) && !root.Get("isCompactSummary").Bool() {
			m.prompt = PromptText(root.Get("message.content"))
		}
	default:
		if m.Cwd == "" && root.Get("uuid").Exists() {
			m.Cwd = root.Get("cwd").String()
		}
	}
}
