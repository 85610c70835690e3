package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// loginEnv, set to an agent's name, makes any command of the bridge run
// that agent's own interactive login instead of serving ACP. It is how an
// editor runs a terminal auth method (ACP AuthMethodTerminal): the schema
// has the editor append the method's args to the command it is configured
// with and merge its env, the ACP registry's AUTHENTICATION.md has it run
// the agent with the args instead of the usual ones. Appended args land
// wherever the configured command ends (after `-- CLI-ARGS`, say), so the
// variable is the switch, and the args, `login NAME`, are the login
// command for the other reading.
const loginEnv = "ACPBRIDGE_LOGIN"

// loginSpec is how an agent's own interactive login runs, and how the
// bridge tells that it took.
type loginSpec struct {
	args []string // the CLI's login command
	// status, when set, is a command of the CLI that exits 0 only when it
	// is logged in; else creds, when set, says whether the credentials the
	// login writes are there; else the login's exit status is the answer.
	status []string
	creds  func() bool
	how    string // what the user does, for the method's description
	keyEnv string // the API key variable that makes a login unnecessary
}

// loginCommand is `acpbridge login NAME`: an agent's own login, in this
// terminal.
func loginCommand(g *globals) *cli.Command {
	var path string
	return &cli.Command{
		Name:      "login",
		Usage:     "run an agent's own interactive login in this terminal (what an editor's terminal login runs)",
		ArgsUsage: "AGENT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "path", Usage: "the agent's executable (default: its --path variable, else found on PATH)", Destination: &path},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "login takes one AGENT ("+strings.Join(loginNames(), ", ")+")")
			}
			return runLogin(c, g, c.Args().First(), path)
		},
	}
}

// loginRequested reports which agent's login a command was started for:
// the variable, or, from a terminal, a command line that ends with the
// args of a terminal method (an editor that appended them and dropped the
// env).
func loginRequested(c *cli.Context) string {
	if name := os.Getenv(loginEnv); name != "" {
		return name
	}
	args := c.Args().Slice()
	if n := len(args); n >= 2 && args[n-2] == "login" && isTerminal(os.Stdin) {
		if _, ok := loginEntry(args[n-1]); ok {
			return args[n-1]
		}
	}
	return ""
}

// loginFromCommand runs the login named for an adapter command d: with the
// executable the command was configured with when it is that agent's.
func loginFromCommand(c *cli.Context, g *globals, d adapterEntry, name string) error {
	path := ""
	if name == d.name && d.pathFlag != "" {
		path = c.String(d.pathFlag)
	}
	return runLogin(c, g, name, path)
}

// runLogin runs agent name's interactive login on this terminal and
// checks it took: exit 0 only then.
func runLogin(c *cli.Context, g *globals, name, path string) error {
	ctx := c.Context
	d, ok := loginEntry(name)
	if !ok {
		return usageError(c, fmt.Sprintf("no login for %q: the agents with one are %s", name, strings.Join(loginNames(), ", ")))
	}
	if path == "" {
		path = d.exe
		if p := os.Getenv(d.env); p != "" {
			path = p
		}
	}
	exe, err := findAgent(d, path)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	shown := filepath.Base(exe) + " " + strings.Join(d.login.args, " ")
	fmt.Fprintf(g.stderr, "Logging %s in (%s).\n", d.title, strings.TrimSpace(shown))
	cmd := exec.Command(exe, d.login.args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, g.stdout, g.stderr
	if err := cmd.Run(); err != nil {
		return cli.Exit(fmt.Sprintf("%s's login did not finish: %v", d.title, err), 1)
	}
	if !d.login.took(ctx, exe) {
		key := ""
		if d.login.keyEnv != "" {
			key = " (" + d.login.keyEnv + ")"
		}
		return cli.Exit(fmt.Sprintf("%s is still not logged in. Run the login again, or give acpbridge an API key in its environment%s.", d.title, key), 1)
	}
	fmt.Fprintf(g.stderr, "%s is logged in. You can close this terminal and go back to the editor.\n", d.title)
	return nil
}

// took reports whether the login the CLI at exe ran took.
func (l *loginSpec) took(ctx context.Context, exe string) bool {
	switch {
	case l.status != nil:
		cmd := exec.CommandContext(ctx, exe, l.status...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		return cmd.Run() == nil
	case l.creds != nil:
		return l.creds()
	}
	return true
}

// loginEntry is the adapter entry of an agent that has a login.
func loginEntry(name string) (adapterEntry, bool) {
	for _, d := range installable() {
		if d.name == name && d.login != nil {
			return d, true
		}
	}
	return adapterEntry{}, false
}

func loginNames() []string {
	var names []string
	for _, d := range installable() {
		if d.login != nil {
			names = append(names, d.name)
		}
	}
	return names
}

// terminalLogin is the terminal auth method that runs d's login.
func (d adapterEntry) terminalLogin() acp.AuthMethodTerminal {
	desc := fmt.Sprintf("Opens a terminal running %s's own login (%s). %s", d.title,
		strings.TrimSpace(d.exe+" "+strings.Join(d.login.args, " ")), d.login.how)
	args := []string{"login", d.name}
	env := map[string]string{loginEnv: d.name}
	m := acp.AuthMethodTerminal{
		ID:          acp.AuthMethodID(d.name + "-login"),
		Name:        "Log in to " + d.title + " in a terminal",
		Description: &desc,
		Args:        args,
		Env:         env,
	}
	// Zed also reads _meta["terminal-auth"] of a method, the convention
	// that came before AuthMethodTerminal: the whole command line to run,
	// which names this binary itself and needs no reading of args at all.
	if self, err := os.Executable(); err == nil {
		m.Meta = map[string]any{"terminal-auth": map[string]any{
			"command": self, "args": args, "env": env, "label": d.title + " login"}}
	}
	return m
}

// terminalLogins are the terminal auth methods of the entries given.
func terminalLogins(ds ...adapterEntry) []acp.AuthMethodTerminal {
	var out []acp.AuthMethodTerminal
	for _, d := range ds {
		if d.login != nil {
			out = append(out, d.terminalLogin())
		}
	}
	return out
}

// settingsAuth reports whether a Gemini-style settings file (JSON) names
// an auth type, which these CLIs write once a login is chosen.
func settingsAuth(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	return json.Unmarshal(b, &s) == nil && s.Security.Auth.SelectedType != ""
}

// homeCreds says whether the CLI whose folder in the home is dir (".gemini")
// has been logged in: an OAuth credentials file, or an auth type chosen in
// its settings.
func homeCreds(dir string) func() bool {
	return func() bool {
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		if _, err := os.Stat(filepath.Join(home, dir, "oauth_creds.json")); err == nil {
			return true
		}
		return settingsAuth(filepath.Join(home, dir, "settings.json"))
	}
}
