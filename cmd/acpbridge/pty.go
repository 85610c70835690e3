package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/pty"
)

// ptyCommand builds the pty command: any interactive terminal agent, driven
// through a pseudo-terminal by a profile.
func ptyCommand(g *globals, serve serveFunc) *cli.Command {
	var profile, record string
	var cols, rows int
	return &cli.Command{
		Name:      "pty",
		Usage:     "serve an interactive terminal agent (a TUI or a line-prompt REPL) through a pseudo-terminal",
		ArgsUsage: "-- CMD [ARGS...]",
		Description: "The profile says how the agent's screen looks when it is idle, busy or asking for permission.\n" +
			"Without --profile it is chosen by the command's name; an unknown command gets the generic\n" +
			"line-prompt profile. Built-in profiles: " + builtinProfiles() + ".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", EnvVars: []string{"ACPBRIDGE_PTY_PROFILE"},
				Usage: "a built-in profile `NAME`, or a profile FILE (TOML)", Destination: &profile},
			&cli.IntFlag{Name: "cols", Value: 200, Usage: "terminal width", Destination: &cols},
			&cli.IntFlag{Name: "rows", Value: 50, Usage: "terminal height", Destination: &rows},
			&cli.StringFlag{Name: "record", EnvVars: []string{"ACPBRIDGE_PTY_RECORD"},
				Usage: "record the first session's terminal and the editor's turns into fixture `FILE` (see `acpbridge replay`)", Destination: &record},
		},
		Action: func(c *cli.Context) error {
			argv := c.Args().Slice()
			if len(argv) == 0 {
				return usageError(c, "pty needs the agent's command after --, for example: acpbridge pty -- aider")
			}
			if cols < 40 || rows < 10 || cols > 1000 || rows > 500 {
				return usageError(c, fmt.Sprintf("--cols %d --rows %d: want at least 40x10 and at most 1000x500", cols, rows))
			}
			p, err := pty.FindProfile(profile, argv[0])
			if err != nil {
				return cli.Exit(fmt.Sprintf("--profile: %v", err), 2)
			}
			w := g.wiring()
			o := pty.Options{Command: argv, Cols: cols, Rows: rows, Logger: w.logger, StopGrace: w.stopGrace}
			if record != "" {
				o.Record = pty.NewRecorder(record, "")
			}
			a, err := pty.New(p, o)
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			return serve(c, a)
		},
	}
}

func builtinProfiles() string {
	var names []string
	for _, p := range pty.Builtin() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
