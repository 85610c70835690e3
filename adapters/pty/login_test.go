package pty

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// The sign-in screens of the real CLIs run in a new HOME without
// credentials (200 columns, trailing blanks trimmed), and what their
// profiles' [login] make of them.
var (
	codexSignIn = `  Welcome to Codex, OpenAI's command-line coding agent

  Choose how you want to use Codex.

> 1. Sign in with ChatGPT
     Usage included with Plus, Pro, Business, and Enterprise plans

  2. Sign in with Device Code
     Sign in from another device with a one-time code

  3. Sign in another way
     Use an API key or another provider

  Press enter to continue`
	codexBrowser = `  Welcome to Codex, OpenAI's command-line coding agent

  Finish signing in via your browser

  If the link doesn't open automatically, press c to copy it:

  On a remote or headless machine? Press esc and choose Sign in with Device Code.

  Press esc to cancel`
	geminiSignIn = "╭" + strings.Repeat("─", 198) + "╮\n" +
		boxLine(" ? Get started") + "\n" + boxLine("") + "\n" +
		boxLine("   How would you like to authenticate for this project?") + "\n" + boxLine("") + "\n" +
		boxLine("   ● 1. Sign in with Google") + "\n" + boxLine("     2. Use Gemini API Key") + "\n" +
		"╰" + strings.Repeat("─", 198) + "╯"
)

func boxLine(s string) string { return "│" + s + strings.Repeat(" ", 198-len([]rune(s))) + "│" }

func TestLoginPatterns(t *testing.T) {
	tests := []struct {
		profile, screen string
		want            bool
	}{
		{"codex", codexSignIn, true},
		{"codex", codexBrowser, true},
		{"codex", codexIdle, false},
		{"codex", codexTrust, false},
		{"codex", codexAsk, false},
		{"gemini", geminiSignIn, true},
		{"claude", "  Select login method:\n\n ❯ 1. Claude account with subscription · Individual, Team, or Enterprise", true},
	}
	for _, tt := range tests {
		p, err := FindProfile(tt.profile, "")
		if err != nil {
			t.Fatal(err)
		}
		if p.Login == nil {
			t.Fatalf("profile %s has no [login]", tt.profile)
		}
		if got := p.Login.Match.MatchString(tt.screen); got != tt.want {
			t.Errorf("%s login(%.40q…) = %v, want %v", tt.profile, tt.screen, got, tt.want)
		}
	}
}

// An agent that shows its sign-in screen (no credentials) gets its prompt
// answered auth-required (-32000) at once, saying what to run, instead of
// the start-up limit's internal error a minute later; so do the session's
// later prompts.
func TestSignInScreenIsAuthRequired(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.Start = Duration(time.Minute)
	s := fakeSession(t, q, newClient(nil), "-login")
	for i := range 2 {
		start := time.Now()
		_, err := prompt(t, deadline(t), s, "hello")
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeAuthRequired {
			t.Fatalf("prompt %d: error %v; want auth required (-32000)", i+1, err)
		}
		if !strings.Contains(ae.Message, "faketui is not logged in") || !strings.Contains(ae.Message, "log the fake TUI in") {
			t.Errorf("prompt %d: message %q; want the agent named and the profile's hint", i+1, ae.Message)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("prompt %d: answered after %s", i+1, d.Round(time.Millisecond))
		}
	}
}
