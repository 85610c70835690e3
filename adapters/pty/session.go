package pty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// session is one agent on one PTY.
type session struct {
	id      acp.SessionID
	c       acp.Client
	p       *Profile
	opts    *Options
	log     zerolog.Logger
	proc    proc.Process
	scr     *screen
	exited  chan struct{} // closed when the PTY output has ended
	sig     *signals      // nil without a [signal] section in the profile
	wg      sync.WaitGroup
	started bool // accessed only by Prompt (one at a time): start-up dialogs done
	// startups is what was done about the start-up dialogs, kept for the
	// session: a dialog may come back (drawn late, over a prompt) and the
	// editor is asked about it only once. Accessed only by Prompt.
	startups startups
	cwd      string
	// prompts are the echo lines (see echoLine) of the prompts typed so
	// far; a reply ends where one of them shows again. Accessed only by
	// Prompt.
	prompts []string
	// transcript is the session's transcript file once a turn found it;
	// accessed only by Prompt.
	transcript string
	// shown is the version the agent showed when it started, if the
	// profile can read it. Accessed only by Prompt.
	shown string
	// failed, once set, fails every prompt: the agent cannot go on (the
	// editor declined a start-up dialog). Accessed only by Prompt.
	failed error
	// seen is the screen version Prompt last looked at, and when it first
	// saw it; accessed only by Prompt (see still).
	seen struct {
		seq uint64
		at  time.Time
	}

	closeOnce sync.Once
	closeErr  error
}

func startSession(ctx context.Context, id acp.SessionID, req acp.NewSessionRequest, c acp.Client, p *Profile, o *Options) (*session, error) {
	spec := proc.Spec{Name: o.Name, Path: o.Command[0], Args: o.Command[1:], Dir: req.Cwd, Env: o.Env,
		Logger: o.Logger, Grace: o.StopGrace}
	log := o.Logger.With().Str("session", string(id)).Logger()
	sig, err := signalSpec(&spec, p, o, log)
	if err != nil {
		return nil, err
	}
	pr, err := o.start(context.WithoutCancel(ctx), spec, uint16(o.Cols), uint16(o.Rows))
	if err != nil {
		if sig != nil {
			sig.close()
		}
		return nil, err
	}
	s := &session{id: id, c: c, p: p, opts: o, log: log, sig: sig,
		proc: pr, scr: newScreen(o.Cols, o.Rows, o.Now), exited: make(chan struct{}), cwd: req.Cwd,
		startups: startups{answered: map[string]time.Time{}, chosen: map[string][]byte{}}}
	s.wg.Add(2)
	go s.readPTY()
	go s.answerQueries()
	return s, nil
}

// readPTY copies the agent's output into the emulator until the agent and
// everything it started have exited.
func (s *session) readPTY() {
	defer s.wg.Done()
	defer close(s.exited)
	_, err := io.Copy(s.scr, s.proc.Stdout())
	if err != nil {
		s.log.Debug().Err(err).Msg("reading the pty")
	}
}

// answerQueries sends the emulator's answers to the agent's terminal queries
// (cursor position, device attributes) back to the agent, as a terminal
// does: TUIs wait for them. It ends when the emulator is closed, after
// readPTY.
func (s *session) answerQueries() {
	defer s.wg.Done()
	_, _ = io.Copy(s.proc.Stdin(), s.scr.replies())
}

func (s *session) ID() acp.SessionID       { return s.id }
func (s *session) State() acp.SessionState { return acp.SessionState{} }

func (s *session) SetMode(context.Context, acp.SessionModeID) error {
	return errors.New("a PTY agent has no modes")
}

func (s *session) SetConfigOption(context.Context, acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	return nil, errors.New("a PTY agent has no config options")
}

// Close stops the agent and everything it started, and waits for the
// session's goroutines.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*s.opts.StopGrace+time.Second)
		defer cancel()
		err := s.proc.Stop(ctx)
		<-s.exited
		s.scr.close()
		s.wg.Wait()
		if s.sig != nil {
			s.sig.close()
		}
		var ee interface{ ExitCode() int }
		if err != nil && !errors.As(err, &ee) {
			s.closeErr = err
		}
	})
	return s.closeErr
}

// getenv is the agent's environment variable name: the last of its
// overrides, else the bridge's own.
func (s *session) getenv(name string) string {
	for i := len(s.opts.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(s.opts.Env[i], name+"="); ok {
			return v
		}
	}
	return os.Getenv(name)
}

// home is the agent's HOME.
func (s *session) home() string {
	if h := s.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// write types b into the agent's terminal.
func (s *session) write(b []byte) error {
	if _, err := s.proc.Stdin().Write(b); err != nil {
		return fmt.Errorf("typing into %s: %w", s.opts.Name, err)
	}
	return nil
}

// promptText is the text of a prompt's blocks, one paragraph each.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, b.ResourceLink.URI)
		}
	}
	return strings.Join(parts, "\n\n")
}

// typing is what typing the prompt sends: a bracketed paste when the agent
// enabled it (multi-line text arrives whole), else the text with newlines as
// spaces (a newline would submit early), then the submit keys.
func (s *session) typing(prompt string, paste bool) []byte {
	var b []byte
	if paste {
		b = append(b, "\x1b[200~"...)
		b = append(b, strings.ReplaceAll(prompt, "\x1b[201~", "")...)
		b = append(b, "\x1b[201~"...)
	} else {
		b = append(b, strings.Join(strings.Fields(prompt), " ")...)
	}
	return append(b, s.p.Submit.Bytes("")...)
}

// exitError is the error of an agent that ended during a turn.
func (s *session) exitError(v view) error {
	werr := s.proc.Wait()
	why := "exited"
	if werr != nil {
		why = werr.Error()
	}
	return fmt.Errorf("%s ended during the turn (%s); last screen:\n%s", s.opts.Name, why, lastLines(v.text, 8))
}

func lastLines(text string, n int) string {
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
