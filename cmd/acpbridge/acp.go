package main

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	acpadapter "github.com/acpbridge/acpbridge/adapters/acp"
)

// nativeAgent is a CLI that speaks ACP itself, known to the bridge by name.
type nativeAgent struct {
	name, title string
	exe         string   // executable looked up on PATH
	acpArgs     []string // what puts the CLI in ACP mode
	npm         string   // package that installs it
	note        string   // anything else the install needs
}

// envPath is the variable that points the bridge at the agent's executable.
func (n nativeAgent) envPath() string {
	return "ACPBRIDGE_" + strings.ToUpper(n.name) + "_PATH"
}

func (n nativeAgent) install() string {
	s := "npm install -g " + n.npm
	if n.note != "" {
		s += " (" + n.note + ")"
	}
	return s
}

// nativeAgents are the native-ACP CLIs with a command of their own.
func nativeAgents() []nativeAgent {
	return []nativeAgent{
		{name: "gemini", title: "Gemini CLI", exe: "gemini", acpArgs: []string{"--acp"}, npm: "@google/gemini-cli"},
		{name: "qwen", title: "Qwen Code", exe: "qwen", acpArgs: []string{"--acp"}, npm: "@qwen-code/qwen-code", note: "needs Node.js 22 or later"},
		{name: "opencode", title: "opencode", exe: "opencode", acpArgs: []string{"acp"}, npm: "opencode-ai"},
		{name: "copilot", title: "GitHub Copilot CLI", exe: "copilot", acpArgs: []string{"--acp"}, npm: "@github/copilot"},
	}
}

// acpCommand is `acpbridge acp [--name NAME] -- CMD [ARGS...]`: any agent
// that speaks ACP itself.
func acpCommand(g *globals, serve serveFunc) *cli.Command {
	var name string
	return &cli.Command{
		Name:      "acp",
		Usage:     "serve any agent that speaks ACP itself, with the bridge's tracing, serving and process hygiene",
		ArgsUsage: "-- CMD [ARGS...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", EnvVars: []string{"ACPBRIDGE_ACP_NAME"},
				Usage: "name of the agent in logs and errors (default: the command's base name)", Destination: &name},
		},
		Action: func(c *cli.Context) error {
			argv := c.Args().Slice()
			if len(argv) == 0 {
				return cli.Exit("acp needs the agent's command line after --, for example: acpbridge acp -- gemini --acp", 2)
			}
			path, err := exec.LookPath(argv[0])
			if err != nil {
				return cli.Exit(fmt.Sprintf("acp: cannot run %q: %v", argv[0], err), 2)
			}
			return serve(c, newPassthrough(g, name, "", path, argv[1:]))
		},
	}
}

// nativeCommand is `acpbridge NAME [--path PATH] [-- ARGS...]` for a known
// native-ACP CLI.
func nativeCommand(g *globals, serve serveFunc, n nativeAgent) *cli.Command {
	var path string
	return &cli.Command{
		Name:      n.name,
		Usage:     fmt.Sprintf("serve %s (%s %s) to the editor", n.title, n.exe, strings.Join(n.acpArgs, " ")),
		ArgsUsage: "[-- EXTRA " + strings.ToUpper(n.name) + " ARGS]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Value: n.exe, EnvVars: []string{n.envPath()},
				Usage: "the " + n.title + " executable", Destination: &path},
		},
		Action: func(c *cli.Context) error {
			exe, err := findAgent(n, path)
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			args := append(append([]string{}, n.acpArgs...), c.Args().Slice()...)
			return serve(c, newPassthrough(g, n.name, n.title, exe, args))
		},
	}
}

// findAgent resolves the CLI's executable, or says how to install it.
func findAgent(n nativeAgent, path string) (string, error) {
	exe, err := exec.LookPath(path)
	if err == nil {
		return exe, nil
	}
	return "", fmt.Errorf("%s cannot be started from %q: %v. Install %s (%s) or give the path of its executable with --path or %s",
		n.title, path, err, n.title, n.install(), n.envPath())
}

func newPassthrough(g *globals, name, title, path string, args []string) *acpadapter.Adapter {
	w := g.wiring()
	return acpadapter.New(acpadapter.Options{
		Name: name, Title: title, Path: path, Args: args,
		StopGrace: w.stopGrace, Logger: w.logger, Trace: w.trace,
	})
}

// passthroughCommands are the commands of the native-ACP agents, for the
// stdio app and for serve.
func passthroughCommands(g *globals, serve serveFunc) []*cli.Command {
	cmds := []*cli.Command{acpCommand(g, serve)}
	for _, n := range nativeAgents() {
		cmds = append(cmds, nativeCommand(g, serve, n))
	}
	return cmds
}
