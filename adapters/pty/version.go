package pty

import "strings"

// noteVersion reads the version the agent shows on its first idle screen
// and warns when it is not the one the profile was written against: a
// profile for another version may misread the screen.
func (s *session) noteVersion(text string) {
	if !s.p.VersionShown.set() {
		return
	}
	m := s.p.VersionShown.FindStringSubmatch(text)
	if len(m) < 2 {
		return
	}
	s.shown = m[1]
	if !strings.Contains(s.p.Version, s.shown) {
		s.log.Warn().Str("profile", s.p.Name).Str("written_against", s.p.Version).Str("shown", s.shown).
			Msg("the agent's version is not the one its profile was written against")
	}
}

// versionNote names the agent's version in an error about a screen the
// profile does not know, when it is not the profile's.
func (s *session) versionNote(text string) string {
	shown := s.shown
	if shown == "" && s.p.VersionShown.set() {
		if m := s.p.VersionShown.FindStringSubmatch(text); len(m) > 1 {
			shown = m[1]
		}
	}
	if shown == "" || strings.Contains(s.p.Version, shown) {
		return ""
	}
	return "; the agent shows version " + shown
}
