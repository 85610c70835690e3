package pty

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
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
	// CommandOnly adds Args and Env only when the agent's executable is one
	// of the profile's commands: started through a wrapper (env(1), npx, a
	// script) the arguments would be the wrapper's, which fails on them, so
	// such a session goes without reports and its idle screen ends turns.
	CommandOnly bool `toml:"command_only"`
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
	q := jsonString(prompt)
	expand := func(p string) string { return strings.ReplaceAll(p, "{prompt}", regexp.QuoteMeta(q)) }
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

// jsonString is s as a JSON string the way agents write it: without
// json.Marshal's HTML escapes (Codex writes "<" and "&" as they are).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
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

// signalLine is the line of the [signal] header, for errors.
func signalLine(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "[signal]" {
			return i + 1
		}
	}
	return 0
}

// fallback is Fallback or its default.
func (g *Signal) fallback() time.Duration {
	if g.Fallback > 0 {
		return time.Duration(g.Fallback)
	}
	return 5 * time.Second
}

// signalSpec opens the session's socket when the profile has a [signal]
// section, and adds the section's arguments (after the executable name)
// and environment to spec.
func signalSpec(spec *proc.Spec, p *Profile, o *Options, log zerolog.Logger) (*signals, error) {
	if !p.Signal.set() {
		return nil, nil
	}
	if p.Signal.CommandOnly && !slices.Contains(p.Commands, filepath.Base(spec.Path)) {
		log.Info().Str("command", spec.Path).Strs("profile_commands", p.Commands).
			Msg("the agent is not started as one of the profile's commands: its turn reports are off, the idle screen ends turns")
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
