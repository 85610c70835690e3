package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/bridge"
)

// codexFlags are the flags of Codex's command (Codex through
// `codex app-server`), and the constructor of its adapter.
func codexFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var o codex.Options
	flags := []cli.Flag{
		d.pathOption(&o.Path),
		&cli.StringFlag{Name: "model", EnvVars: []string{"ACPBRIDGE_CODEX_MODEL"},
			Usage: "`MODEL` of new sessions, Codex's default when empty (e.g. gpt-5.5)", Destination: &o.Model},
		&cli.StringFlag{Name: "mode", Value: codex.ModeAuto, EnvVars: []string{"ACPBRIDGE_CODEX_MODE"},
			Usage: "initial approval preset: read-only, auto or full-access", Destination: &o.Mode},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		switch o.Mode {
		case codex.ModeReadOnly, codex.ModeAuto, codex.ModeFullAccess:
		default:
			return nil, usageError(c, fmt.Sprintf("--mode %q is not one of read-only, auto, full-access", o.Mode))
		}
		o.ExtraArgs = c.Args().Slice()
		o.InstallHint = d.installHint()
		o.Logger, o.Trace, o.StopGrace = w.logger, w.trace, w.stopGrace
		return codex.New(o), nil
	}
}
