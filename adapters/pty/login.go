package pty

import (
	"fmt"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Login recognises the agent's sign-in screen: an agent without
// credentials shows it instead of its idle screen, and no prompt gets past
// it, so the turn is answered auth-required (-32000) at once, with what to
// run, rather than failing on the start-up limit a minute later.
type Login struct {
	// Match recognises the sign-in screen.
	Match Pattern `toml:"match"`
	// Hint says how to log the agent in ("run `codex login` in a
	// terminal"), for the editor to show.
	Hint string `toml:"hint"`
}

// loginError is the auth-required error of a session whose agent shows
// its sign-in screen; nil when the screen is not it.
func (s *session) loginError(text string) error {
	l := s.p.Login
	if l == nil || !l.Match.MatchString(text) {
		return nil
	}
	msg := fmt.Sprintf("%s is not logged in: it shows its sign-in screen", s.opts.Name)
	if h := strings.TrimSpace(l.Hint); h != "" {
		msg += "; " + h
	}
	s.log.Warn().Str("profile", s.p.Name).Msg(msg)
	// The agent stays at that screen: every prompt of the session gets the
	// same answer (log it in, then open a new session).
	s.failed = acp.NewError(acp.CodeAuthRequired, msg, map[string]any{"screen": lastLines(text, 12)})
	return s.failed
}
