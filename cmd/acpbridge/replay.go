package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/native"

	"github.com/acpbridge/acpbridge/adapters/pty"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// replayFlags are the flags of the replay command, and its constructor:
// the adapter that plays the recording named.
func replayFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var pace time.Duration
	var profile string
	flags := []cli.Flag{
		&cli.DurationFlag{Name: "pace", EnvVars: []string{"ACPBRIDGE_REPLAY_PACE"},
			Usage: "delay before each recorded output line, to watch a replay at a human speed (e.g. 30ms)", Destination: &pace},
		&cli.StringFlag{Name: "profile", Usage: "play a terminal recording with this profile (a built-in `NAME` or a FILE) " +
			"instead of the one it carries", Destination: &profile},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		if c.NArg() != 1 {
			return nil, usageError(c, fmt.Sprintf("%s takes exactly one FIXTURE: a recording file, or %s (the one built in)", d.name, d.example))
		}
		// The agent script stays on disk: each session streams it.
		rec, err := openRecording(c.Args().First())
		if err != nil {
			return nil, usageError(c, fmt.Sprintf("loading fixture: %v", err))
		}
		if profile != "" {
			if !playsProfiles(rec.Meta["adapter"]) {
				return nil, usageError(c, "--profile is for terminal recordings, not "+rec.Meta["adapter"]+" ones")
			}
			p, err := pty.FindProfile(profile, "")
			if err != nil {
				return nil, usageError(c, fmt.Sprintf("--profile: %v", err))
			}
			rec.Profile = p.Source()
		}
		a, err := replayWith(w, rec, pace)
		if err != nil {
			return nil, usageError(c, fmt.Sprintf("replaying %s: %v", rec.Path, err))
		}
		return a, nil
	}
}

// openRecording opens the FIXTURE of replay: a file, or, named "demo"
// where no such file is, the recording built into the binary.
func openRecording(name string) (*recording.Recording, error) {
	if name == replay.DemoName {
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return replay.Demo()
		}
	}
	return recording.Open(name)
}

// replayAdapter plays rec through the adapter the table gives its kind
// (the fixture's "adapter" meta), driven by the in-process player of that
// kind as its agent process.
func replayAdapter(g *globals, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	return replayWith(g.wiring(), rec, pace)
}

func replayWith(w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	kind := rec.Meta["adapter"]
	var kinds []string
	for _, d := range adapters() {
		if d.kind == kind && d.replay != nil {
			return d.replay(d, w, rec, pace)
		}
		if d.kind != "" {
			kinds = append(kinds, d.kind)
		}
	}
	return nil, fmt.Errorf("unsupported adapter %q (want %s)", kind, orList(kinds))
}

// playsProfiles reports whether recordings of kind are played with a PTY
// profile.
func playsProfiles(kind string) bool {
	for _, d := range adapters() {
		if d.kind == kind {
			return d.profiles
		}
	}
	return false
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// replayClaude plays a stream-JSON recording through Claude Code's adapter.
func replayClaude(d adapterEntry, w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	return replay.Stream(rec, replay.Options{Pace: pace, Wrap: claudeReplay(d, w)})
}

// replayStreamJSON plays a recording of a CLI in its stream-JSON dialect
// (its "dialect" meta, a built-in one) through the engine with that
// dialect.
func replayStreamJSON(_ adapterEntry, w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	d, ok := claude.BuiltinDialect(rec.Meta["dialect"])
	if !ok {
		return nil, fmt.Errorf("dialect %q is not a built-in one (%s)", rec.Meta["dialect"], strings.Join(claude.BuiltinDialects(), ", "))
	}
	return replay.Stream(rec, replay.Options{Pace: pace, Wrap: func(launch replay.Launch) bridge.Adapter {
		return claude.New(claude.Options{Dialect: d, Launch: launch, ModelCache: "-", AwaitStart: true,
			Logger: w.logger, Trace: w.trace, StopGrace: w.stopGrace}).Contract()
	}})
}

// replayCodex plays a JSON-RPC recording through Codex's adapter.
func replayCodex(d adapterEntry, w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	launch, err := replay.Launcher(rec, replay.PlayerOptions{Pace: pace})
	if err != nil {
		return nil, err
	}
	return codex.New(codex.Options{Path: d.exe, Launch: launch, Logger: w.logger, Trace: w.trace,
		StopGrace: w.stopGrace}), nil
}

// replayACP plays a JSON-RPC recording of a native-ACP agent through the
// pass-through adapter, titled after the agent it recorded.
func replayACP(d adapterEntry, w wiring, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	launch, err := replay.Launcher(rec, replay.PlayerOptions{Pace: pace})
	if err != nil {
		return nil, err
	}
	title := " (replay of " + filepath.Base(rec.Path) + ")"
	name := cmp.Or(rec.Meta["agent"], d.name)
	return native.New(native.Options{Name: name, Title: nativeTitle(name) + title, Path: name,
		Launch: launch, Logger: w.logger, Trace: w.trace, StopGrace: w.stopGrace}), nil
}

// replayPTY plays a terminal recording at its recorded pace: its timing
// is what the engine reads screens by.
func replayPTY(_ adapterEntry, w wiring, rec *recording.Recording, _ time.Duration) (bridge.Adapter, error) {
	o := pty.ReplayOptions{Logger: w.logger}
	if rec.Profile != nil {
		// The profile the recording carries (or --profile's).
		p, err := pty.ParseProfile(rec.Path+" (profile)", rec.Profile)
		if err != nil {
			return nil, err
		}
		o.Profile = p
	}
	return pty.Replay(rec.Meta, rec.Script, o)
}

// claudeReplay wraps Claude Code's adapter around the replay's launcher.
func claudeReplay(d adapterEntry, w wiring) func(replay.Launch) bridge.Adapter {
	return func(launch replay.Launch) bridge.Adapter {
		return claude.New(claude.Options{
			Path:      d.exe,
			Launch:    launch,
			Logger:    w.logger,
			Trace:     w.trace,
			StopGrace: w.stopGrace,
			// The recorded CLI starts instantly: waiting for its initialize
			// answer makes every session/new answer carry the same models and
			// commands, instead of racing the start.
			AwaitStart: true,
		})
	}
}
