package pty

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Signal is a profile's [signal] section: how the agent reports its own turn
// boundaries (Codex `notify`, Claude Code hooks) to a socket the bridge owns
// for the session. The bridge adds Args and Env when it starts the agent;
// in them these placeholders are replaced:
//
//   - {socket}: the socket's path;
//   - {notify_json}: the reporter's argv as a JSON array of strings (also a
//     valid TOML array, for `-c notify=...`);
//   - {notify_sh}: the reporter as a POSIX shell command line;
//   - {notify_sh_json}: that command line as a JSON string, quotes included
//     (for a hook command inside JSON settings).
//
// The reporter is this program (`acpbridge pty-notify SOCKET [EVENT]`); it
// sends the arguments the agent gives it and its standard input. Each
// event pattern is matched against that report (the arguments, one a line,
// then the input); in it {prompt} stands for the turn's prompt as a JSON
// string, so that a report can be tied to the turn it is about.
//
// The signal decides only when: the reply text and the dialogs are still
// read from the screen.
type Signal struct {
	// Args are added to the agent's command, after its executable name.
	Args []string `toml:"args"`
	// Env are "KEY=value" entries added to the agent's environment.
	Env []string `toml:"env"`
	// TurnComplete recognises the report that ends the turn at once.
	TurnComplete string `toml:"turn_complete"`
	// Permission recognises a report that the agent waits for a permission
	// answer: its dialog is asked as soon as the screen shows it.
	Permission string `toml:"permission"`
	// Submitted recognises a report that the agent took the prompt.
	Submitted string `toml:"submitted"`
	// Done matches a line the agent shows below the reply once the turn is
	// over whatever ended it (Codex: "Worked for 3s", or "Conversation
	// interrupted" after a rejected command, which it reports to no one):
	// an idle screen that shows it after the prompt's echo ends the turn
	// after the quiet window rather than the fallback.
	Done Pattern `toml:"done"`
	// Fallback is how long an idle screen must be quiet to end a turn no
	// report ended (default 5s): the hook may be missing from the agent's
	// version, and a working agent can look idle for a moment (Codex hides
	// its busy line while it streams).
	Fallback Duration `toml:"fallback"`
}

func (g *Signal) set() bool { return g != nil && g.TurnComplete != "" }

func (g *Signal) validate(line int) error {
	if g == nil {
		return nil
	}
	if g.TurnComplete == "" {
		return missing(line, "turn_complete", "[signal]")
	}
	for _, p := range []string{g.TurnComplete, g.Permission, g.Submitted} {
		if p == "" {
			continue
		}
		if _, err := regexp.Compile(strings.ReplaceAll(p, "{prompt}", `"x"`)); err != nil {
			return fmt.Errorf("%d: bad regular expression %q in [signal]: %v", line, p, err)
		}
	}
	return nil
}

// eventKind is what a report says.
type eventKind int

const (
	eventOther eventKind = iota
	eventTurnComplete
	eventPermission
	eventSubmitted
)

// report is one message from the reporter.
type report struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin,omitempty"`
	at    time.Time
}

func (r report) text() string { return strings.Join(r.Args, "\n") + "\n" + r.Stdin }

// classify says what r reports for a turn whose prompt is prompt.
func (g *Signal) classify(r report, prompt string) eventKind {
	q, _ := json.Marshal(prompt)
	expand := func(p string) string { return strings.ReplaceAll(p, "{prompt}", regexp.QuoteMeta(string(q))) }
	text := r.text()
	for _, e := range []struct {
		pat  string
		kind eventKind
	}{{g.TurnComplete, eventTurnComplete}, {g.Permission, eventPermission}, {g.Submitted, eventSubmitted}} {
		if e.pat == "" {
			continue
		}
		// Compiled per report: reports are a few per turn, and {prompt}
		// changes every turn. validate checked the patterns.
		if re, err := regexp.Compile("(?s)" + expand(e.pat)); err == nil && re.MatchString(text) {
			return e.kind
		}
	}
	return eventOther
}

// NotifyCommand is the name of the hidden subcommand that is the reporter.
const NotifyCommand = "pty-notify"

// reporter is the argv prefix of the reporter: this executable and its
// hidden subcommand.
func reporter() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable for the agent's reporter: %w", err)
	}
	return []string{exe, NotifyCommand}, nil
}

// expand replaces the placeholders of Args and Env for a socket at sock
// and the reporter argv rep.
func (g *Signal) expand(sock string, rep []string) (args, env []string) {
	argv := append(append([]string(nil), rep...), sock)
	js, _ := json.Marshal(argv)
	sh := shellLine(argv)
	shj, _ := json.Marshal(sh)
	r := strings.NewReplacer("{socket}", sock, "{notify_json}", string(js), "{notify_sh_json}", string(shj), "{notify_sh}", sh)
	for _, a := range g.Args {
		args = append(args, r.Replace(a))
	}
	for _, e := range g.Env {
		env = append(env, r.Replace(e))
	}
	return args, env
}

// shellLine quotes argv for a POSIX shell.
func shellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// maxSocketPath is the longest socket path that binds everywhere.
const maxSocketPath = 100

// maxReport bounds one report: Codex puts every prompt of the thread in it.
const maxReport = 4 << 20

// reportWait bounds how long one reporter may take to send its report.
const reportWait = 5 * time.Second

// signals is a session's socket: a unix socket in a private temporary
// directory, which Close removes. Reports arrive on reports.
type signals struct {
	dir     string
	sock    string
	ln      net.Listener
	log     zerolog.Logger
	now     func() time.Time
	reports chan report // buffered; a full buffer drops the report
	wg      sync.WaitGroup
	once    sync.Once
}

// listen opens the socket. The directory is private (0700), so only this
// user's processes can report.
func listen(log zerolog.Logger, now func() time.Time) (*signals, error) {
	// A unix socket's path has a short limit (108 bytes on Linux, 104 on
	// macOS): a long $TMPDIR falls back to /tmp.
	parent := os.TempDir()
	if len(parent)+len("/acpbridge-pty-0123456789/s") > maxSocketPath {
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "acpbridge-pty-")
	if err != nil {
		return nil, fmt.Errorf("making the signal socket's directory: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("listening on the signal socket: %w", err)
	}
	g := &signals{dir: dir, sock: sock, ln: ln, log: log, now: now, reports: make(chan report, 64)}
	g.wg.Add(1)
	go g.accept()
	return g, nil
}

func (g *signals) accept() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				g.log.Debug().Err(err).Msg("accepting on the signal socket")
			}
			return
		}
		g.wg.Add(1)
		go g.read(c)
	}
}

// read takes one report from c.
func (g *signals) read(c net.Conn) {
	defer g.wg.Done()
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(reportWait))
	b, err := io.ReadAll(io.LimitReader(c, maxReport))
	if err != nil {
		g.log.Debug().Err(err).Msg("reading a report")
		return
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		g.log.Debug().Err(err).Msg("a report that is not JSON")
		return
	}
	r.at = g.now()
	g.log.Debug().Strs("args", r.Args).Int("stdin", len(r.Stdin)).Msg("report")
	select {
	case g.reports <- r:
	default:
		g.log.Warn().Msg("dropping a report: none was read for a while")
	}
}

// drain forgets the reports that arrived so far: they are about turns that
// have ended.
func (g *signals) drain() {
	for {
		select {
		case <-g.reports:
		default:
			return
		}
	}
}

// close stops listening, waits for the readers and removes the socket's
// directory.
func (g *signals) close() {
	g.once.Do(func() {
		g.ln.Close()
		g.wg.Wait()
		os.RemoveAll(g.dir)
	})
}

// Notify is the reporter: it sends args and, unless it is a terminal or
// absent, what stdin holds, to the socket at sock, as an agent's hook or
// notify command runs it. It reads stdin for at most a few seconds: a hook
// runner that leaves it open must not hang the agent.
func Notify(sock string, args []string, stdin *os.File) error {
	r := report{Args: args}
	if stdin != nil {
		if fi, err := stdin.Stat(); err == nil && fi.Mode()&(os.ModeCharDevice|os.ModeDevice) == 0 {
			r.Stdin = readBounded(stdin, reportWait)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("unix", sock, reportWait)
	if err != nil {
		return fmt.Errorf("reporting to the bridge: %w", err)
	}
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(reportWait))
	if _, err := c.Write(b); err != nil {
		return fmt.Errorf("reporting to the bridge: %w", err)
	}
	return nil
}

// signalLine is the line of the [signal] header, for errors.
func signalLine(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "[signal]" {
			return i + 1
		}
	}
	return 0
}

// signalSpec opens the session's socket when the profile has a [signal]
// section, and adds the section's arguments (after the executable name)
// and environment to spec.
func signalSpec(spec *proc.Spec, p *Profile, o *Options, log zerolog.Logger) (*signals, error) {
	if !p.Signal.set() {
		return nil, nil
	}
	rep := o.Reporter
	if len(rep) == 0 {
		var err error
		if rep, err = reporter(); err != nil {
			return nil, err
		}
	}
	g, err := listen(log, o.Now)
	if err != nil {
		return nil, err
	}
	args, env := p.Signal.expand(g.sock, rep)
	spec.Args = append(args, spec.Args...)
	spec.Env = append(append([]string(nil), spec.Env...), env...)
	return g, nil
}

// fallback is Fallback or its default.
func (g *Signal) fallback() time.Duration {
	if g.Fallback > 0 {
		return time.Duration(g.Fallback)
	}
	return 5 * time.Second
}

// idleFor is how long an idle screen must be quiet to end a turn that has
// a [signal] section: the quiet window once the agent's done line shows
// below the prompt's echo, else the fallback.
func (t *turn) idleFor(v view) time.Duration {
	if t.s.p.Signal.Done.set() && t.doneShown(v) {
		return time.Duration(t.s.p.Quiet)
	}
	return t.s.p.Signal.fallback()
}

// doneShown reports whether the agent's done line shows below the prompt's
// echo.
func (t *turn) doneShown(v view) bool {
	lines, _ := replyLines(strings.Split(v.text, "\n"), t.rawBase, t.prompt)
	for _, l := range lines {
		if t.s.p.Signal.Done.MatchString(l) {
			return true
		}
	}
	return false
}

// backFromInterrupt reports whether an interrupted agent is back at its
// idle screen: the idle pattern, and the done line where the profile has
// one (Codex shows its idle input box while it streams, so idle alone says
// nothing).
func (t *turn) backFromInterrupt(v view) bool {
	if !t.s.p.Idle.MatchString(v.text) {
		return false
	}
	g := t.s.p.Signal
	return !g.set() || !g.Done.set() || t.doneShown(v)
}

// typedText is the prompt as the agent receives it from typing (see
// session.typing).
func typedText(prompt string, paste bool) string {
	if paste {
		return strings.ReplaceAll(prompt, "\x1b[201~", "")
	}
	return strings.Join(strings.Fields(prompt), " ")
}

// report acts on one of the agent's reports during the turn; true means it
// ends the turn.
func (t *turn) report(r report) bool {
	switch t.s.p.Signal.classify(r, t.typed) {
	case eventTurnComplete:
		t.s.log.Debug().Msg("the agent reported the turn complete")
		return true
	case eventPermission:
		t.busy, t.urgent = true, true
	case eventSubmitted:
		t.busy = true
	default:
		t.s.log.Debug().Msg("a report about another turn, or nothing the profile knows")
	}
	return false
}

// endOnReport ends the turn the agent reported complete. Its last frame
// may still be on its way through the PTY (the report comes over another
// channel), and a hook may run before the TUI takes input again (Claude
// Code's Stop hook does: a prompt typed at once is queued), so the screen
// is read once it has not changed for a moment and shows the idle
// pattern, or after four quiet windows at most; then the reply's rest is
// sent.
func (t *turn) endOnReport(ctx context.Context) (acp.StopReason, error) {
	s := t.s
	limit := time.NewTimer(4 * time.Duration(s.p.Quiet))
	defer limit.Stop()
	for {
		v := s.scr.view()
		if s.opts.Now().Sub(v.last) >= reportSettle && s.p.Idle.MatchString(v.text) {
			return acp.StopReasonEndTurn, t.emit(ctx, t.final(v))
		}
		select {
		case <-limit.C:
			return acp.StopReasonEndTurn, t.emit(ctx, t.final(s.scr.view()))
		case <-ctx.Done():
			return t.cancel()
		case <-s.scr.changed:
		case <-time.After(tick):
		}
	}
}

// reportSettle is how long the screen must be unchanged after a
// turn-complete report before the reply is read from it.
const reportSettle = 30 * time.Millisecond
