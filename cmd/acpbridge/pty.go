package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/pty"
	"github.com/acpbridge/acpbridge/bridge"
)

// ptyFlags are the flags of the pty command (any interactive terminal
// agent, driven through a pseudo-terminal by a profile), and the
// constructor of its adapter.
func ptyFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var profile, record, printName string
	var cols, rows int
	var explain bool
	flags := []cli.Flag{
		&cli.StringFlag{Name: "profile", EnvVars: []string{"ACPBRIDGE_PTY_PROFILE"},
			Usage: "a built-in profile `NAME`, or a profile FILE (TOML)", Destination: &profile},
		&cli.IntFlag{Name: "cols", Value: 200, Usage: "terminal width", Destination: &cols},
		&cli.IntFlag{Name: "rows", Value: 50, Usage: "terminal height", Destination: &rows},
		&cli.StringFlag{Name: "record", EnvVars: []string{"ACPBRIDGE_PTY_RECORD"},
			Usage: "record the first session's terminal and the editor's turns into fixture `FILE` (see `acpbridge replay`)", Destination: &record},
		&cli.BoolFlag{Name: "explain", Usage: "run the agent and show on stderr, as its screen changes, which of the profile's patterns match it; " +
			"each line of stdin is typed as a prompt, \":keys KEY...\" types keys (serves no ACP)", Destination: &explain},
		&cli.StringFlag{Name: "print-profile", Usage: "print the built-in profile `NAME` (a template for your own) and exit", Destination: &printName},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		if printName != "" {
			return nil, printProfile(c, printName)
		}
		if err := ptySupported(runtime.GOOS); err != nil {
			return nil, usageError(c, err.Error())
		}
		argv := c.Args().Slice()
		if len(argv) == 0 {
			return nil, usageError(c, fmt.Sprintf("%s needs the agent's command after --, for example: acpbridge %s -- %s", d.name, d.name, d.example))
		}
		if cols < 40 || rows < 10 || cols > 1000 || rows > 500 {
			return nil, usageError(c, fmt.Sprintf("--cols %d --rows %d: want at least 40x10 and at most 1000x500", cols, rows))
		}
		p, err := pty.FindProfile(profile, argv[0])
		if err != nil {
			return nil, usageError(c, fmt.Sprintf("--profile: %v", err))
		}
		o := pty.Options{Command: argv, Cols: cols, Rows: rows, Logger: w.logger, StopGrace: w.stopGrace}
		if explain {
			if err := pty.Explain(c.Context, p, o, os.Stdin, c.App.ErrWriter); err != nil {
				return nil, cli.Exit(fmt.Sprintf("--explain: %v", err), 1)
			}
			return nil, cli.Exit("", 0)
		}
		if record != "" {
			o.Record = pty.NewRecorder(record, "")
		}
		a, err := pty.New(p, o)
		if err != nil {
			return nil, usageError(c, err.Error())
		}
		return a, nil
	}
}

func builtinProfiles() string {
	return strings.Join(pty.BuiltinNames(), ", ")
}

// printProfile prints the built-in profile name on stdout, as the template
// of a profile for another agent: nothing is served.
func printProfile(c *cli.Context, name string) error {
	p, err := pty.BuiltinProfile(name)
	if err != nil {
		return usageError(c, "--print-profile: "+err.Error())
	}
	fmt.Fprintf(c.App.Writer, "# The built-in profile %q of acpbridge %s. Change its name, then serve an agent\n"+
		"# with it: acpbridge pty --profile FILE -- CMD (see docs/terminal-agents.md).\n\n", name, c.App.Version)
	if _, err := c.App.Writer.Write(p.Source()); err != nil {
		return err
	}
	return cli.Exit("", 0)
}

// ptySupported says plainly when goos has no pseudo-terminal the PTY
// engine can drive: on Windows the library it uses has no ConPTY support,
// so the command refuses rather than fail at the first session.
func ptySupported(goos string) error {
	if goos == "windows" {
		return fmt.Errorf("acpbridge pty is not supported on Windows: it drives a Unix pseudo-terminal, and the ConPTY of Windows is not supported yet. " +
			"Serve the agent through its own command instead (acpbridge agents lists them)")
	}
	return nil
}
