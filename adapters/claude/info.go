package claude

import (
	"os"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// isoTime is how session/list and session_info_update write times.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// sendInfo tells the editor the conversation's title and when it last
// changed, as session/list would list it now: the title the CLI stores
// (set with /rename, or generated) or else the first prompt, and the
// transcript's modification time. It runs at the end of each turn, when
// the CLI has written the turn to its transcript; the title is sent again
// only when it changed. Without a transcript (the CLI was told not to
// keep one) there is nothing to report.
func (s *Session) sendInfo() {
	path, err := s.a.store.find(s.id, s.cwd)
	if err != nil {
		s.log.Debug().Err(err).Msg("no transcript for session_info_update")
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	m, err := readSessionMeta(path)
	if err != nil {
		s.log.Debug().Err(err).Msg("reading transcript for session_info_update")
		return
	}
	u := &acp.SessionInfoUpdate{UpdatedAt: acp.Set(isoTime(fi.ModTime()))}
	s.mu.Lock()
	if t := m.title(); t != "" && t != s.title {
		s.title = t
		u.Title = acp.Set(t)
	}
	s.mu.Unlock()
	s.update(acp.SessionUpdate{SessionInfoUpdate: u})
}
