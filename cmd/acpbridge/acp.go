package main

import (
	"fmt"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/bridge"
)

// acpFlags are the flags of `acpbridge acp [--name NAME] -- CMD [ARGS...]`:
// any agent that speaks ACP itself.
func acpFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var name string
	flags := []cli.Flag{
		&cli.StringFlag{Name: "name", EnvVars: []string{"ACPBRIDGE_ACP_NAME"},
			Usage: "name of the agent in logs and errors (default: the command's base name)", Destination: &name},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		argv := c.Args().Slice()
		if len(argv) == 0 {
			return nil, usageError(c, fmt.Sprintf("%s needs the agent's command line after --, for example: acpbridge %s -- %s", d.name, d.name, d.example))
		}
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, usageError(c, fmt.Sprintf("%s: cannot run %q: %v", d.name, argv[0], err))
		}
		return newPassthrough(w, name, "", path, argv[1:]), nil
	}
}

// nativeFlags are the flags of `acpbridge NAME [--path PATH] [-- ARGS...]`
// for a known native-ACP CLI.
func nativeFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var path string
	return []cli.Flag{d.pathOption(&path)}, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		exe, err := findAgent(d, path)
		if err != nil {
			return nil, usageError(c, err.Error())
		}
		args := append(append([]string{}, d.acpArgs...), c.Args().Slice()...)
		return newPassthrough(w, d.name, d.title, exe, args), nil
	}
}

// findAgent resolves the CLI's executable, or says how to install it.
func findAgent(d adapterEntry, path string) (string, error) {
	exe, err := exec.LookPath(path)
	if err == nil {
		return exe, nil
	}
	return "", fmt.Errorf("%s cannot be started from %q: %v. %s", d.title, path, err, d.installHint())
}

// installHint says how to get the agent's CLI, or point the bridge at it.
func (d adapterEntry) installHint() string {
	return fmt.Sprintf("Install %s (%s) or give the path of its executable with --%s or %s",
		d.title, d.install, d.pathFlag, d.env)
}

func newPassthrough(w wiring, name, title, path string, args []string) *native.Adapter {
	return native.New(native.Options{
		Name: name, Title: title, Path: path, Args: args,
		StopGrace: w.stopGrace, Logger: w.logger, Trace: w.trace,
	})
}
