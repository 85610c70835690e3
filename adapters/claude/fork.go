package claude

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ForkSession opens a new session with the conversation of a stored one
// (unstable session/fork): the fork's CLI starts with the source's resume
// flag, the dialect's fork flag and the new id (Claude Code: --resume=SRC
// --fork-session --session-id=NEW), so it reads the source's transcript and
// writes its own; the source's transcript is not changed, and the source,
// open or not, goes on as before. Once the fork has stored its first turn,
// a restart of its CLI resumes the fork itself. An id with no transcript is
// an error wrapping acp.ErrResourceNotFound.
func (a *Adapter) ForkSession(ctx context.Context, req acp.ForkSessionRequest, c acp.Client) (acp.Session, error) {
	if !a.dialect.forks() {
		return nil, fmt.Errorf("%w: %s cannot fork sessions", acp.ErrMethodNotFound, a.dialect.Title)
	}
	if err := a.checkPath(); err != nil {
		return nil, err
	}
	if err := a.checkCwd(req.Cwd); err != nil {
		return nil, err
	}
	if _, err := a.store.Find(req.SessionID, filepath.Clean(req.Cwd)); err != nil {
		return nil, err
	}
	s, err := a.open(ctx, OpenOptions{ID: acp.SessionID(a.opts.NewSessionID()), Cwd: filepath.Clean(req.Cwd),
		AdditionalDirectories: req.AdditionalDirectories, McpServers: req.McpServers, ForkFrom: req.SessionID}, c)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// forks reports whether the dialect can fork a stored session: it names
// the session it starts, resumes stored ones, and has a fork flag.
func (d *Dialect) forks() bool {
	return d.Transcripts == "claude" && d.SessionArg != "" && d.ResumeArg != "" && d.ForkArg != ""
}

// forkArgs are the arguments that start session id as a fork of src.
func (d *Dialect) forkArgs(src, id string) []string {
	return []string{strings.ReplaceAll(d.ResumeArg, "{id}", src), d.ForkArg,
		strings.ReplaceAll(d.SessionArg, "{id}", id)}
}
