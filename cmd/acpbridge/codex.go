package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/codex"
)

// codexCommand builds the codex command: Codex through `codex app-server`.
func codexCommand(g *globals, serve serveFunc) *cli.Command {
	var o codex.Options
	return &cli.Command{
		Name:      "codex",
		Usage:     "serve Codex (its app-server JSON-RPC protocol) to the editor",
		ArgsUsage: "[-- EXTRA CODEX APP-SERVER ARGS]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "codex-path", Value: "codex", EnvVars: []string{"ACPBRIDGE_CODEX_PATH"},
				Usage: "the Codex executable", Destination: &o.Path},
			&cli.StringFlag{Name: "model", EnvVars: []string{"ACPBRIDGE_CODEX_MODEL"},
				Usage: "model of new sessions (Codex's default when empty)", Destination: &o.Model},
			&cli.StringFlag{Name: "mode", Value: codex.ModeAuto, EnvVars: []string{"ACPBRIDGE_CODEX_MODE"},
				Usage: "initial approval preset: read-only, auto or full-access", Destination: &o.Mode},
		},
		Action: func(c *cli.Context) error {
			switch o.Mode {
			case codex.ModeReadOnly, codex.ModeAuto, codex.ModeFullAccess:
			default:
				return cli.Exit(fmt.Sprintf("--mode %q is not one of read-only, auto, full-access", o.Mode), 2)
			}
			o.ExtraArgs = c.Args().Slice()
			w := g.wiring()
			o.Logger, o.Trace, o.StopGrace = w.logger, w.trace, w.stopGrace
			return serve(c, codex.New(o))
		},
	}
}
