package claude

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
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
	after, err := transcripts.ParseCursor(req.Cursor)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	files, err := a.store.Files(cwd)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	slices.SortFunc(files, transcripts.NewestFirst)
	if after != nil {
		i, found := slices.BinarySearchFunc(files, *after, transcripts.NewestFirst)
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
			res.NextCursor = acp.Ptr(files[i-1].Cursor())
			break
		}
		info, ok := a.sessionInfo(f, cwd)
		if ok {
			res.Sessions = append(res.Sessions, info)
		}
	}
	return res, nil
}

// sessionInfo reads what a listing shows of one transcript. A file without
// a conversation (no entry with a cwd) or, with a filter, from another
// directory whose name sanitizes the same way, is left out.
func (a *Adapter) sessionInfo(f transcripts.File, cwd string) (acp.SessionInfo, bool) {
	m, err := a.store.ReadMeta(f.Path)
	if err != nil {
		a.opts.Logger.Debug().Err(err).Str("path", f.Path).Msg("skipping unreadable claude transcript")
		return acp.SessionInfo{}, false
	}
	if m.Cwd == "" || (cwd != "" && !sameDir(m.Cwd, cwd)) {
		return acp.SessionInfo{}, false
	}
	info := acp.SessionInfo{
		SessionID: f.ID,
		Cwd:       m.Cwd,
		UpdatedAt: acp.Ptr(isoTime(time.Unix(0, f.MTime))),
	}
	if t := m.Title(); t != "" {
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
