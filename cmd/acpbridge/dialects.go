package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/bridge"
)

// streamJSONFlags are the flags of the command that serves any
// Claude-Code-style CLI by its dialect, and the constructor of its adapter.
// --print-dialect writes a built-in dialect to stdout and serves nothing.
func streamJSONFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var o claude.Options
	var dialect, print string
	flags := []cli.Flag{
		&cli.StringFlag{Name: "dialect", EnvVars: []string{"ACPBRIDGE_STREAM_JSON_DIALECT"},
			Usage: "a built-in dialect (" + strings.Join(claude.BuiltinDialects(), ", ") + ") or a dialect file (TOML)", Destination: &dialect},
		&cli.StringFlag{Name: "print-dialect", Usage: "print the built-in dialect `NAME` as a template for a dialect file, and exit", Destination: &print},
		&cli.StringFlag{Name: "permission-mode", EnvVars: []string{"ACPBRIDGE_STREAM_JSON_PERMISSION_MODE"},
			Usage: "initial mode, one of the dialect's (the first of them when empty)", Destination: &o.PermissionMode},
		&cli.StringFlag{Name: "model", EnvVars: []string{"ACPBRIDGE_STREAM_JSON_MODEL"},
			Usage: "initial `MODEL`, one of the CLI's (its default when empty)", Destination: &o.Model},
		&cli.DurationFlag{Name: "start-timeout", Value: claude.DefaultStartTimeout, EnvVars: []string{"ACPBRIDGE_STREAM_JSON_START_TIMEOUT"},
			Usage: "how long a starting CLI may take to answer its initialize request before it is stopped and the prompt fails", Destination: &o.StartTimeout},
		&cli.DurationFlag{Name: "read-window", Value: claude.DefaultReadWindow, EnvVars: []string{"ACPBRIDGE_STREAM_JSON_READ_WINDOW"},
			Usage: "while the CLI streams fast, let its output gather this long between reads (0: read every line at once)", Destination: &o.ReadWindow},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		if print != "" {
			out, err := claude.PrintBuiltin(print)
			if err != nil {
				return nil, usageError(c, "--print-dialect: "+err.Error())
			}
			_, _ = c.App.Writer.Write(out)
			return nil, cli.Exit("", 0)
		}
		if dialect == "" {
			return nil, usageError(c, fmt.Sprintf("%s needs --dialect, for example: acpbridge %s %s", d.name, d.name, d.example))
		}
		dl, err := claude.LoadDialect(dialect)
		if err != nil {
			return nil, usageError(c, "--dialect: "+err.Error())
		}
		if o.PermissionMode != "" && !slices.Contains(dl.ModeIDs(), o.PermissionMode) {
			return nil, usageError(c, fmt.Sprintf("--permission-mode %q is not one of the %s dialect's: %s",
				o.PermissionMode, dl.Name, strings.Join(dl.ModeIDs(), ", ")))
		}
		if o.StartTimeout <= 0 || o.ReadWindow < 0 {
			return nil, usageError(c, "--start-timeout must be positive and --read-window not negative")
		}
		if args := c.Args().Slice(); len(args) > 0 {
			o.Path, o.ExtraArgs = args[0], args[1:]
		}
		o.Dialect, o.ModelCache = dl, "-"
		o.Logger, o.Trace, o.StopGrace = w.logger, w.trace, w.stopGrace
		return claude.New(o).Contract(), nil
	}
}
