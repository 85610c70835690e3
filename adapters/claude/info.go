package claude

import (
	"os"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// titleFromPrompt names a new session after its first prompt as soon as
// the prompt is sent, as session/list will once the CLI has stored it, so
// the editor need not wait for the end of the turn. A title the CLI stores
// later replaces it (sendInfo).
func (s *Session) titleFromPrompt(blocks []acp.ContentBlock) {
	var t string
	for _, b := range blocks {
		if b.Text != nil {
			if text, ok := transcripts.TypedText(b.Text.Text); ok {
				t = transcripts.CleanTitle(text)
				break
			}
		}
	}
	s.mu.Lock()
	changed := t != "" && s.title == ""
	if changed {
		s.title = t
	}
	s.mu.Unlock()
	if changed {
		s.update(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.Set(t)}})
	}
}

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
	s.mu.Lock()
	path := s.transcript
	s.mu.Unlock()
	if path == "" {
		if path = s.a.store.Own(s.id, s.cwd); path == "" {
			s.log.Debug().Msg("no transcript for session_info_update")
			return
		}
		s.mu.Lock()
		s.transcript = path
		s.mu.Unlock()
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	m, err := s.a.store.ReadMeta(path)
	if err != nil {
		s.log.Debug().Err(err).Msg("reading transcript for session_info_update")
		return
	}
	u := &acp.SessionInfoUpdate{UpdatedAt: acp.Set(isoTime(fi.ModTime()))}
	s.mu.Lock()
	if t := m.Title(); t != "" && t != s.title {
		s.title = t
		u.Title = acp.Set(t)
	}
	s.mu.Unlock()
	s.update(acp.SessionUpdate{SessionInfoUpdate: u})
}
