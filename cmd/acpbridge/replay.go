package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/fixtures"
)

// replayCommand builds the replay command; serve runs the adapter (over
// stdio, or over HTTP under serve).
func replayCommand(g *globals, serve serveFunc) *cli.Command {
	var pace time.Duration
	return &cli.Command{
		Name:      "replay",
		Usage:     "serve a recorded native session as if the wrapped CLI were running (no CLI or credentials needed)",
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
			rec, err := fixtures.Open(c.Args().First())
			if err != nil {
				return cli.Exit(fmt.Sprintf("loading fixture: %v", err), 2)
			}
			a, err := replay.Stream(rec, replay.Options{Logger: g.logger, Trace: g.traceAgent(), Pace: pace})
			if err != nil {
				return cli.Exit(fmt.Sprintf("replaying %s: %v", rec.Path, err), 2)
			}
			return serve(c, a)
		},
	}
}
