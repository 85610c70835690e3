package pty

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Profile says how to drive one terminal agent: how its screen looks when it
// is idle, busy or asking something, which keys answer what, and which lines
// of the screen are chrome rather than reply. Profiles are TOML files a user
// can write for their own agent; see ParseProfile for the format and the
// built-in ones in profiles/.
type Profile struct {
	// Name identifies the profile (--profile NAME).
	Name string `toml:"name"`
	// Version is the TUI version the profile was written against; it is
	// named in the error when the screen no longer matches.
	Version string `toml:"version"`
	// VersionShown, if set, finds the agent's version on its screen (its
	// first group): a version other than the profile's is logged when the
	// agent starts and named when the screen no longer matches.
	VersionShown Pattern `toml:"version_shown"`
	// Commands are the executable names that select this profile when no
	// --profile is given.
	Commands []string `toml:"commands"`
	// Idle matches the screen when the agent waits for a prompt.
	Idle Pattern `toml:"idle"`
	// Busy matches the screen while the agent works.
	Busy Pattern `toml:"busy"`
	// Submit are the keys typed after the prompt (default ["enter"]).
	Submit Keys `toml:"submit"`
	// Interrupt are the keys that stop a turn (default ["ctrl-c"]).
	Interrupt Keys `toml:"interrupt"`
	// Redraw makes the agent draw its screen again. Before the first
	// prompt, a screen that was idle and then stays quiet matching nothing
	// the profile knows (a TUI whose own stray output overwrote its input
	// box) gets it every redrawAfter.
	Redraw Keys `toml:"redraw"`
	// SubmitDelay is a pause between typing the prompt and the submit keys,
	// for TUIs that take keys arriving right after a paste as part of it
	// (Gemini CLI makes such an Enter a new line).
	SubmitDelay Duration `toml:"submit_delay"`
	// Quiet is how long the screen must not change before an idle screen
	// ends the turn (default 150ms; a BEL at idle ends it at once).
	Quiet Duration `toml:"quiet"`
	// Unknown is how long a screen that matches neither idle, busy nor a
	// dialog may stay unchanged before the turn fails (default 30s).
	Unknown Duration `toml:"unknown"`
	// Start is how long the agent may take to show its first idle screen
	// (default 30s).
	Start Duration `toml:"start"`
	// StartQuiet is how long the first idle screen must stay unchanged
	// before the first prompt is typed (default: Quiet), for a TUI that
	// draws its idle screen before a start-up dialog: Gemini CLI draws its
	// input box, then asks whether to trust the folder, and a prompt typed
	// in between dismisses the dialog (its paste's Esc) and the CLI exits.
	StartQuiet Duration `toml:"start_quiet"`
	// Echo says the agent echoes every prompt into its history: a turn's
	// reply is only what shows below that echo, never what the agent drew
	// above it after the prompt was typed (a banner drawn late).
	Echo bool `toml:"echo"`
	// Ready, if set, must also match the first idle screen: what the agent
	// draws once it has really started (Gemini CLI's banner, drawn after
	// its input box, and after a restart below what the old process left).
	// An idle screen that stays quiet readyWait without it is taken anyway:
	// a user may have turned the banner off.
	Ready Pattern `toml:"ready"`
	// InputAtCursor says the cursor's row is the agent's own prompt (or the
	// line it is still writing), never finished reply text: true for
	// line-prompt REPLs, whose prompt is not chrome a pattern could name
	// without also naming reply lines.
	InputAtCursor bool `toml:"input_at_cursor"`
	// Chrome are lines of the screen that are never reply text (input box,
	// borders, spinners, footer); each is matched against a whole line. A
	// pattern that contains a line break is matched against the whole
	// screen instead, and the lines it covers are chrome: a tool call's
	// bullet is chrome because of the line below it.
	Chrome []Pattern `toml:"chrome"`
	// Strip, if set, is cut from the start of each reply line: the marker
	// and indent a TUI puts before its messages ("● ", "• ").
	Strip Pattern `toml:"strip"`
	// Transcript, if set, is where the agent writes the conversation; the
	// reply is read from it instead of the screen (see Transcript).
	Transcript *Transcript `toml:"transcript"`
	// Dialogs are the permission dialogs the agent shows during a turn.
	Dialogs []Dialog `toml:"dialog"`
	// Startup are dialogs answered before the first prompt (trust this
	// folder, use this API key).
	Startup []Startup `toml:"startup"`
	// Signal, if set, is how the agent reports its turn boundaries itself
	// (see Signal).
	Signal *Signal `toml:"signal"`
	// Login, if set, recognises the agent's sign-in screen (see Login).
	Login *Login `toml:"login"`

	source []byte // the TOML the profile was read from
}

// Source is the TOML the profile was read from.
func (p *Profile) Source() []byte { return p.source }

// Dialog is a permission dialog: recognised on the screen, asked of the
// editor with its options, answered with the chosen option's keys.
type Dialog struct {
	Name string `toml:"name"`
	// Match recognises the dialog on the screen.
	Match Pattern `toml:"match"`
	// Title, if it matches, gives the permission request's title (its
	// first group, or the whole match); default the dialog's name.
	Title Pattern `toml:"title"`
	// TitleAll takes Title at every place it matches, the titles joined
	// by ", ": a dialog that lists what it asks about a line each (Codex
	// names every file an edit touches on a "Destination:" line).
	TitleAll bool `toml:"title_all"`
	// Options are the dialog's fixed options.
	Options []Option `toml:"option"`
	// OptionLine, instead of Options, reads the options from the screen: a
	// pattern with the groups "key" and "label", matched against each line.
	OptionLine Pattern `toml:"option_line"`
	// Answer are the keys that choose an option read by OptionLine; "{key}"
	// stands for its key (default ["{key}"]).
	Answer Keys `toml:"answer"`
	// Kinds map ACP permission kinds (allow_once, allow_always, reject_once,
	// reject_always) to patterns over an option's label, for options read
	// by OptionLine; the first kind in that order that matches wins, and
	// allow_once is the default.
	Kinds map[string]Pattern `toml:"kinds"`

	line int // where the dialog is declared, for errors
}

// Option is one fixed option of a dialog.
type Option struct {
	Label string `toml:"label"`
	Kind  string `toml:"kind"`
	Keys  Keys   `toml:"keys"`
	// GoesOn, on a start-up dialog's option of a reject kind, says the
	// agent goes on after it (Gemini CLI runs in a folder it was told not
	// to trust, without the folder's settings); without it such an answer
	// ends the session.
	GoesOn bool `toml:"goes_on"`

	line int // where the option is declared, for errors
}

// Startup is a dialog shown before the first prompt. With Keys the
// profile answers it itself; with Options it is asked of the editor, and an
// option of a reject kind ends the session with an error (the user said
// no: to trusting a folder, say), unless the option goes on.
type Startup struct {
	Name  string  `toml:"name"`
	Match Pattern `toml:"match"`
	Keys  Keys    `toml:"keys"`
	// Title, if it matches, gives the permission request's title (its
	// groups joined by ": ", or the whole match); default the name.
	Title Pattern `toml:"title"`
	// Options are the choices put to the editor.
	Options []Option `toml:"option"`
	// AnswerOnce types the answer once, never again however long the
	// dialog stays: a TUI that acts on every key (Gemini CLI, slow to redraw
	// on a loaded machine) would take a second answer as another choice.
	AnswerOnce bool `toml:"answer_once"`

	line int
}

// Pattern is a regular expression over the emulated screen (multi-line mode:
// ^ and $ match at line ends).
type Pattern struct{ *regexp.Regexp }

// UnmarshalText compiles the pattern; a bad one is reported with its line.
func (p *Pattern) UnmarshalText(b []byte) error {
	re, err := regexp.Compile("(?m)" + string(b))
	if err != nil {
		return fmt.Errorf("bad regular expression %q: %v", b, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	p.Regexp = re
	return nil
}

func (p Pattern) set() bool { return p.Regexp != nil }

// Duration is a time.Duration written as "150ms".
type Duration time.Duration

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("bad duration %q", b)
	}
	*d = Duration(v)
	return nil
}

// The built-in profiles: those for users in profiles/, and in
// profiles/testing/ those of the tests' fake agents. The binary must play
// the recordings of the tests (replay, --profile, --print-profile), so
// the latter are built in too, but they are not listed to users.
//
//go:embed profiles/*.toml profiles/testing/*.toml
var builtin embed.FS

// BuiltinNames returns the names of the built-in profiles for users,
// sorted, without parsing them: each is named after its file. Parsing them
// all compiles every pattern, which a command that only lists the names
// (the command line's help text, built at every start) need not pay.
func BuiltinNames() []string {
	files, _ := builtin.ReadDir("profiles")
	names := make([]string, 0, len(files))
	for _, f := range files {
		if !f.IsDir() {
			names = append(names, strings.TrimSuffix(f.Name(), ".toml"))
		}
	}
	slices.Sort(names)
	return names
}

// Builtin returns the built-in profiles for users, sorted by name: not
// those of the tests' fake agents, which BuiltinProfile and FindProfile
// still find by name.
func Builtin() []*Profile {
	return parseBuiltin("profiles")
}

// allBuiltin returns every built-in profile, the tests' too.
func allBuiltin() []*Profile {
	return append(Builtin(), parseBuiltin("profiles/testing")...)
}

func parseBuiltin(dir string) []*Profile {
	names, _ := builtin.ReadDir(dir)
	var out []*Profile
	for _, n := range names {
		if n.IsDir() {
			continue
		}
		b, _ := builtin.ReadFile(dir + "/" + n.Name())
		p, err := ParseProfile(dir+"/"+n.Name(), b)
		if err != nil {
			panic(err) // a built-in profile is checked by the tests
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// GenericProfile is the name of the profile for commands no profile names.
const GenericProfile = "generic"

// FindProfile resolves --profile: a built-in name, or a file. An empty name
// picks the built-in profile whose commands include the base name of cmd,
// else the generic one.
func FindProfile(name, cmd string) (*Profile, error) {
	all := allBuiltin()
	if name == "" {
		base := filepath.Base(cmd)
		for _, p := range all {
			for _, c := range p.Commands {
				if c == base {
					return p, nil
				}
			}
		}
		name = GenericProfile
	}
	for _, p := range all {
		if p.Name == name {
			return p, nil
		}
	}
	if !strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("no built-in profile %q (built-in: %s); give a file path for your own", name, builtinNames(Builtin()))
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading profile: %w", err)
	}
	return ParseProfile(name, b)
}

// BuiltinProfile is the built-in profile name, a test's too.
func BuiltinProfile(name string) (*Profile, error) {
	for _, p := range allBuiltin() {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no built-in profile %q (built-in: %s)", name, builtinNames(Builtin()))
}

func builtinNames(all []*Profile) string {
	var n []string
	for _, p := range all {
		n = append(n, p.Name)
	}
	return strings.Join(n, ", ")
}

// ParseProfile reads a profile from TOML. Errors name the file and line: a
// bad regular expression or duration, an unknown key, a missing field.
func ParseProfile(file string, data []byte) (*Profile, error) {
	var p Profile
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, decodeError(file, err)
	}
	dialogs, startups := tableLines(data, "dialog"), tableLines(data, "startup")
	for i := range p.Dialogs {
		p.Dialogs[i].line = at(dialogs, i)
	}
	for i := range p.Startup {
		p.Startup[i].line = at(startups, i)
	}
	if err := p.validate(newSource(data)); err != nil {
		return nil, fmt.Errorf("%s:%w", file, err)
	}
	if err := p.Signal.validate(signalLine(data)); err != nil {
		return nil, fmt.Errorf("%s:%w", file, err)
	}
	p.defaults()
	p.source = bytes.Clone(data)
	return &p, nil
}

func decodeError(file string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		row, _ := e.Position()
		return fmt.Errorf("%s:%d: unknown key %q", file, row, strings.Join(e.Key(), "."))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return fmt.Errorf("%s:%d: %s", file, row, de.Error())
	}
	return fmt.Errorf("%s: %w", file, err)
}

// tableLines are the lines of the [[name]] headers, in order.
func tableLines(data []byte, name string) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "[["+name+"]]" {
			out = append(out, i+1)
		}
	}
	return out
}

func at(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// missing is a required field left out, at the line of its table.
func missing(line int, field, table string) error {
	return fmt.Errorf("%d: missing %q in %s", line, field, table)
}

func (p *Profile) defaults() {
	if len(p.Submit) == 0 {
		p.Submit = Keys{"enter"}
	}
	if len(p.Interrupt) == 0 {
		p.Interrupt = Keys{"ctrl-c"}
	}
	if p.Quiet == 0 {
		p.Quiet = Duration(150 * time.Millisecond)
	}
	if p.Unknown == 0 {
		p.Unknown = Duration(30 * time.Second)
	}
	if p.Start == 0 {
		p.Start = Duration(30 * time.Second)
	}
	if p.StartQuiet < p.Quiet {
		p.StartQuiet = p.Quiet
	}
	for i := range p.Dialogs {
		if len(p.Dialogs[i].Answer) == 0 {
			p.Dialogs[i].Answer = Keys{"{key}"}
		}
	}
}

// idle reports whether screen is the agent's idle screen: the idle pattern
// matches and the busy one does not (an agent may draw its input box while
// it still works, or before it is ready).
func (p *Profile) idle(screen string) bool {
	return p.Idle.MatchString(screen) && !(p.Busy.set() && p.Busy.MatchString(screen))
}
