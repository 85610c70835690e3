package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	acpadapter "github.com/acpbridge/acpbridge/adapters/acp"
	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/pty"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/adapters/replay/recording"
	"github.com/acpbridge/acpbridge/bridge"
)

// replayCommand builds the replay command; serve runs the adapter (over
// stdio, or over HTTP under serve).
func replayCommand(g *globals, serve serveFunc) *cli.Command {
	var pace time.Duration
	return &cli.Command{
		Name:      "replay",
		Usage:     "serve a recorded session (Claude Code, a native-ACP CLI, Codex or a terminal agent) as if the wrapped agent were running (no CLI or credentials needed)",
		ArgsUsage: "FIXTURE",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "pace", EnvVars: []string{"ACPBRIDGE_REPLAY_PACE"},
				Usage: "delay before each recorded output line, to watch a replay at a human speed (e.g. 30ms)", Destination: &pace},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "replay takes exactly one FIXTURE file (for example fixtures/claude/demo.txtar)")
			}
			// The agent script stays on disk: each session streams it.
			rec, err := recording.Open(c.Args().First())
			if err != nil {
				return cli.Exit(fmt.Sprintf("loading fixture: %v", err), 2)
			}
			a, err := replayAdapter(g, rec, pace)
			if err != nil {
				return cli.Exit(fmt.Sprintf("replaying %s: %v", rec.Path, err), 2)
			}
			return serve(c, a)
		},
	}
}

// replayAdapter is the one place that knows every kind of recording: the
// fixture's "adapter" meta picks the adapter the recording is played
// through, driven by the in-process player of that kind as its agent
// process. A new kind of recording is one more case here.
func replayAdapter(g *globals, rec *recording.Recording, pace time.Duration) (bridge.Adapter, error) {
	switch kind := rec.Meta["adapter"]; kind {
	case "claude":
		return replay.Stream(rec, replay.Options{Pace: pace, Wrap: claudeReplay(g)})
	case "acp", "codex":
		launch, err := replay.Launcher(rec, replay.PlayerOptions{Pace: pace})
		if err != nil {
			return nil, err
		}
		title := " (replay of " + filepath.Base(rec.Path) + ")"
		if kind == "codex" {
			return codex.New(codex.Options{Path: "codex", Launch: launch, Logger: g.logger, Trace: g.traceAgent(),
				StopGrace: stopGrace}), nil
		}
		name := cmp.Or(rec.Meta["agent"], "acp")
		return acpadapter.New(acpadapter.Options{Name: name, Title: nativeTitle(name) + title, Path: name,
			Launch: launch, Logger: g.logger, Trace: g.traceAgent(), StopGrace: stopGrace}), nil
	case "pty":
		// A terminal recording plays at its recorded pace: its timing is
		// what the engine reads screens by.
		return pty.Replay(rec.Meta, rec.Script, pty.ReplayOptions{Logger: g.logger})
	default:
		return nil, fmt.Errorf("unsupported adapter %q (want claude, acp, codex or pty)", kind)
	}
}

// nativeTitle is the product name of a native-ACP agent known by name.
func nativeTitle(name string) string {
	for _, n := range nativeAgents() {
		if n.name == name {
			return n.title
		}
	}
	return name
}

// claudeReplay wraps Claude Code's adapter around the replay's launcher.
func claudeReplay(g *globals) func(replay.Launch) bridge.Adapter {
	return func(launch replay.Launch) bridge.Adapter {
		return claude.New(claude.Options{
			Path:      "claude",
			Launch:    launch,
			Logger:    g.logger,
			Trace:     g.traceAgent(),
			StopGrace: stopGrace,
			// The recorded CLI starts instantly: waiting for its initialize
			// answer makes every session/new answer carry the same models and
			// commands, instead of racing the start.
			AwaitStart: true,
		})
	}
}
