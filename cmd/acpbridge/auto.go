package main

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/auto"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// autoCommand is `acpbridge auto`: every installable agent of the table
// that is installed here, behind one editor entry. Each session picks its
// agent in the config option "agent"; new sessions start with --default,
// else the first installed in the table's order. Each agent's adapter is
// built the way its own command builds it, with its flags' defaults (and
// environment), so a new agent of the table is served here too.
func autoCommand(g *globals, serve serveFunc) *cli.Command {
	var def string
	paths := map[string]*string{}
	names := strings.Join(installableNames(), ", ")
	flags := []cli.Flag{
		&cli.StringFlag{Name: "default", EnvVars: []string{"ACPBRIDGE_AUTO_DEFAULT"},
			Usage: "the agent new sessions start with (" + names + "; default: the first of them installed)", Destination: &def},
	}
	for _, d := range installable() {
		p := new(string)
		paths[d.name] = p
		flags = append(flags, &cli.StringFlag{Name: d.name + "-path", Value: d.exe, EnvVars: []string{d.env},
			Usage: "the " + d.title + " executable", Destination: p})
	}
	return &cli.Command{
		Name:  "auto",
		Usage: "serve every supported agent installed here: each session chooses its agent (config option \"agent\")",
		Description: "Agents, in this order: " + names + ". An agent is installed when its\n" +
			"executable is found (on PATH, or where its --NAME-path flag or environment variable says).",
		Flags: flags,
		Action: func(c *cli.Context) error {
			var (
				agents []auto.Agent
				found  []adapterEntry
				all    []auto.Install
			)
			versions := probeVersions(c.Context, paths)
			for _, d := range installable() {
				all = append(all, auto.Install{Title: d.title, Command: d.install})
				path, err := exec.LookPath(*paths[d.name])
				if err != nil {
					continue
				}
				found = append(found, d)
				agents = append(agents, auto.Agent{Name: d.name, Title: d.title,
					Version: func() string { return versions()[d.name] },
					Start:   func() (acp.Adapter, error) { return buildAgent(c, d, path, g.wiring()) }})
			}
			if def != "" && !auto.Has(agents, def) {
				return usageError(c, fmt.Sprintf("--default %q is not an installed agent (installed here: %s)", def, namesOf(found)))
			}
			a := auto.New(agents, auto.Options{Default: def, Version: semver(), Install: all, Logger: g.logger})
			if len(found) == 0 {
				found = installable() // their logins say how to install them
			}
			g.terminalAuth = terminalLogins(found...)
			return serve(c, a)
		},
	}
}

// probeVersions returns the versions of the agents installed at paths, by
// name, probed as `agents` probes them (all at once, cached per
// executable), the first time they are asked for.
func probeVersions(ctx context.Context, paths map[string]*string) func() map[string]string {
	return sync.OnceValue(func() map[string]string {
		var names, found []string
		for name, p := range paths {
			if path, err := exec.LookPath(*p); err == nil {
				names, found = append(names, name), append(found, path)
			}
		}
		probe := versionProbe{cache: defaultVersionCache(), timeout: versionTimeout, run: native.Version}
		out := map[string]string{}
		for i, r := range probe.versions(ctx, found) {
			if r.version != "" {
				out[names[i]] = r.version
			}
		}
		return out
	})
}

// buildAgent builds d's adapter as `acpbridge NAME --PATHFLAG path` would.
func buildAgent(c *cli.Context, d adapterEntry, path string, w wiring) (bridge.Adapter, error) {
	flags, build := d.flags(d)
	set := flag.NewFlagSet(d.name, flag.ContinueOnError)
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
	}
	if err := set.Parse(nil); err != nil {
		return nil, err
	}
	if err := set.Set(d.pathFlag, path); err != nil {
		return nil, err
	}
	return build(cli.NewContext(c.App, set, c), w)
}

func installableNames() []string {
	var out []string
	for _, d := range installable() {
		out = append(out, d.name)
	}
	return out
}

func namesOf(ds []adapterEntry) string {
	if len(ds) == 0 {
		return "none"
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.name
	}
	return strings.Join(names, ", ")
}
