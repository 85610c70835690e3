package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// globals are the flags every command shares.
type globals struct {
	logLevel  string
	logFile   string
	logFormat string
	trace     string

	stdout, stderr io.Writer // ACP (when serving stdio), help and version; errors and logs

	logger  zerolog.Logger
	tracer  *bridge.Trace
	closers []io.Closer

	// terminalAuth are the logins an editor may run in a terminal for the
	// command being served (its agent's, or every installed agent's).
	terminalAuth []acp.AuthMethodTerminal
}

// run runs the command line and returns the process's exit code. Asking for
// help or the version serves no ACP, so the answer goes to stdout like any
// other program's; a mistake on the command line is said once, on stderr,
// with exit code 2.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return exitCode(newApp(stdout, stderr).RunContext(ctx, args), stderr)
}

// newApp builds the command line. ACP, help and the version go to stdout;
// errors and logs to stderr. Every usage error is returned, never printed
// by urfave/cli (which would print it to App.Writer, then return it to be
// printed again), and nothing calls os.Exit: run reports each error once.
func newApp(stdout, stderr io.Writer) *cli.App {
	g := &globals{stdout: stdout, stderr: stderr}
	translating, native := adapterCommands(g, g.serveStdio)
	serve, addServeAdapters := serveCommand(g)
	app := &cli.App{
		Name:           "acpbridge",
		Usage:          "use any command-line coding agent from any ACP editor",
		Version:        versionLine(),
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", EnvVars: []string{"ACPBRIDGE_LOG_LEVEL"},
				Usage:       "trace, debug, info, warn, error or disabled",
				DefaultText: "warn when serving stdio to a non-terminal stderr, else info",
				Destination: &g.logLevel},
			&cli.StringFlag{Name: "log-file", EnvVars: []string{"ACPBRIDGE_LOG_FILE"},
				Usage: "write logs (zerolog JSON) to `FILE` instead of stderr", Destination: &g.logFile},
			&cli.StringFlag{Name: "log-format", EnvVars: []string{"ACPBRIDGE_LOG_FORMAT"},
				Usage: "json or console (default: console when stderr is a terminal)", Destination: &g.logFormat},
			&cli.StringFlag{Name: "trace", EnvVars: []string{"ACPBRIDGE_TRACE"},
				Usage:       "append every JSON-RPC frame read or written, on both sides, to `FILE` (one JSON line each)",
				Destination: &g.trace},
		},
		Before: func(c *cli.Context) error {
			// The root's Before runs before the command named is looked
			// up or its help shown (after the root's own --help and
			// --version, which need no serve adapters).
			if name := c.Args().First(); name == serve.Name || name == "help" {
				addServeAdapters()
			}
			return g.setup(c)
		},
		After: g.teardown,
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "":
				return usageError(c, fmt.Sprintf("no command given (%s)", commandNames(c.App.Commands)))
			case "help":
				return help(c)
			}
			return usageError(c, fmt.Sprintf("unknown command %q", c.Args().First()))
		},
		Commands: append(append(translating,
			ptyNotifyCommand(),
			serve,
			agentsCommand(stdout),
			loginCommand(g),
		), native...),
		HideHelpCommand: true,
		OnUsageError:    onUsageError,
	}
	quietUsage(app.Commands)
	return app
}

// commandNames lists the visible commands, for usage errors that say what
// would have been understood.
func commandNames(cmds []*cli.Command) string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

// help answers `acpbridge help [COMMAND]`, as people type it out of habit.
// It is not a command: a command named help would keep urfave/cli from
// adding --help.
func help(c *cli.Context) error {
	if c.NArg() == 1 {
		return cli.ShowAppHelp(c)
	}
	name := c.Args().Get(1)
	if cmd := c.App.Command(name); cmd == nil || cmd.Hidden {
		return usageError(c, fmt.Sprintf("unknown command %q", name))
	}
	return cli.ShowCommandHelp(c, name)
}

// quietUsage makes every command return its flag errors instead of printing
// them with its help, and drops the generated help subcommand of commands
// that have none (their --help remains).
func quietUsage(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		c.HideHelpCommand = true
		quietUsage(c.Subcommands)
	}
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(f, "-")
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		f = strings.TrimPrefix(f, "-")
		msg = fmt.Sprintf("--%s needs a value (for example --%s %s)", f, f, flagExample(c, f))
	}
	if m := badValue().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %q is not a valid value (for example --%s %s)", m[2], m[1], m[2], flagExample(c, m[2]))
	}
	return usageError(c, msg)
}

// The patterns of usage errors, compiled for the first one: a command line
// without mistakes needs none.
var (
	// badValue is the flag package's error for a value its flag cannot
	// parse, which names the flag with one dash.
	badValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value "(.*)" for flag -([\w-]+): `) })
	// exampleInUsage is how a flag's usage text gives an example value.
	exampleInUsage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(e\.g\. ([^)\s]+)\)`) })
	// placeholderInUsage is the name a flag's usage gives its value (`FILE`).
	placeholderInUsage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`]+)`") })
)

// flagExample is a value the flag named takes: the example its usage gives,
// its default, or one of its type.
func flagExample(c *cli.Context, name string) string {
	var flags []cli.Flag
	if c.Command != nil {
		flags = append(flags, c.Command.Flags...)
	}
	flags = append(flags, c.App.Flags...)
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		if u, ok := f.(cli.DocGenerationFlag); ok {
			if m := exampleInUsage().FindStringSubmatch(u.GetUsage()); m != nil {
				return m[1]
			}
			if m := placeholderInUsage().FindStringSubmatch(u.GetUsage()); m != nil {
				return m[1]
			}
			if d := u.GetDefaultText(); d != "" && d != "0" && d != "0s" && d != `""` {
				return d
			}
		}
		switch f.(type) {
		case *cli.DurationFlag:
			return "2s"
		case *cli.IntFlag, *cli.UintFlag, *cli.Int64Flag, *cli.Uint64Flag:
			return "100"
		case *cli.Float64Flag:
			return "1.5"
		}
	}
	return "VALUE"
}

// usageErr is a mistake on the command line: exit code 2, and a pointer to
// the help of the command it was made in.
type usageErr struct {
	msg     string
	command string // "acpbridge serve"
}

func (e *usageErr) Error() string { return e.msg }

func usageError(c *cli.Context, msg string) error {
	name := "acpbridge"
	if c != nil && c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return &usageErr{msg: msg, command: name}
}

// exitCode reports err on w, once, and returns the exit code for it.
func exitCode(err error, w io.Writer) int {
	if err == nil {
		return 0
	}
	var ue *usageErr
	if errors.As(err, &ue) {
		fmt.Fprintf(w, "acpbridge: %s\nRun '%s --help' for usage.\n", ue.msg, ue.command)
		return 2
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := ec.Error(); msg != "" {
			fmt.Fprintln(w, "acpbridge:", msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(w, "acpbridge:", err)
	return 1
}

// parseLevel maps the values --log-level takes. (zerolog.ParseLevel also
// takes numbers, fatal and panic, and its error says it defaults.)
func parseLevel(s string) (zerolog.Level, bool) {
	switch s {
	case "trace":
		return zerolog.TraceLevel, true
	case "debug":
		return zerolog.DebugLevel, true
	case "info":
		return zerolog.InfoLevel, true
	case "warn":
		return zerolog.WarnLevel, true
	case "error":
		return zerolog.ErrorLevel, true
	case "disabled":
		return zerolog.Disabled, true
	}
	return zerolog.NoLevel, false
}

// defaultLevel is the log level when --log-level is not given. Editors show
// an agent's stderr to the user (agent-shell lists each line as a notice),
// so an editor's bridge says only what needs attention: warn. A person at a
// terminal, a log file someone asked for, and `serve` (run by hand or by a
// service manager, whose address line is info) get info.
// args are the command and its arguments.
func (g *globals) defaultLevel(args []string) zerolog.Level {
	if g.logFile != "" || isTerminal(g.stderr) || (len(args) > 0 && args[0] == "serve") {
		return zerolog.InfoLevel
	}
	return zerolog.WarnLevel
}

func (g *globals) setup(c *cli.Context) error {
	level, ok := parseLevel(g.logLevel)
	switch {
	case g.logLevel == "":
		level = g.defaultLevel(c.Args().Slice())
	case !ok:
		return usageError(c, fmt.Sprintf("--log-level %q is not one of trace, debug, info, warn, error, disabled", g.logLevel))
	}
	var out io.Writer = g.stderr
	if g.logFile != "" {
		f, err := os.OpenFile(g.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return usageError(c, fmt.Sprintf("--log-file: %v", err))
		}
		g.closers = append(g.closers, f)
		out = f
	}
	switch g.logFormat {
	case "json":
	case "console":
		out = zerolog.ConsoleWriter{Out: out}
	case "":
		if g.logFile == "" && isTerminal(g.stderr) {
			out = zerolog.ConsoleWriter{Out: out}
		}
	default:
		return usageError(c, fmt.Sprintf("--log-format %q is not json or console", g.logFormat))
	}
	g.logger = zerolog.New(out).Level(level).With().Timestamp().Logger()
	c.Context = g.logger.WithContext(c.Context)
	if g.trace != "" {
		f, err := os.OpenFile(g.trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return usageError(c, fmt.Sprintf("--trace: %v", err))
		}
		g.closers = append(g.closers, f)
		g.tracer = bridge.NewTrace(f)
	}
	return nil
}

func (g *globals) teardown(*cli.Context) error {
	for _, c := range g.closers {
		c.Close()
	}
	return nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// stopGrace is each step of stopping a child at shutdown (close stdin, then
// SIGTERM, then SIGKILL of its group): short enough that the bridge is gone
// within 2 s of stdin EOF or SIGTERM.
const stopGrace = 500 * time.Millisecond

// wiring is what every adapter takes from the global flags, whichever
// command builds it.
type wiring struct {
	logger    zerolog.Logger
	trace     func(bool, []byte) // the adapter-side trace hook, nil when tracing is off
	stopGrace time.Duration
}

// wiring returns the adapters' share of the globals, valid once the root
// Before has run.
func (g *globals) wiring() wiring {
	w := wiring{logger: g.logger, stopGrace: stopGrace}
	if g.tracer != nil {
		w.trace = g.tracer.Agent
	}
	return w
}

// serveFunc runs the bridge for an adapter a command built.
type serveFunc func(c *cli.Context, a bridge.Adapter) error

// serveStdio runs the bridge for adapter a on this process's stdin/stdout.
func (g *globals) serveStdio(c *cli.Context, a bridge.Adapter) error {
	// A stdio bridge moves one line at a time from one pipe to another. With
	// more than one P, every goroutine handoff on that path woke a second OS
	// thread: futex and wakep were ~23% of the bridge's CPU in a 20,000-delta
	// Claude turn, CPU the CLI beside it then lacked. One P removed that and
	// cost nothing measurable elsewhere (replay throughput 373k vs 356k/s).
	// HTTP serving keeps the default; GOMAXPROCS in the environment wins.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	srv := bridge.New(a, bridge.Options{Version: semver(), Logger: g.logger, Trace: g.tracer, TerminalAuth: g.terminalAuth})
	defer a.Close()
	in := stdin()
	defer in.Close()
	return srv.ServeStdio(c.Context, in, g.stdout)
}
