package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/bridge"
)

// globals are the flags every command shares.
type globals struct {
	logLevel  string
	logFile   string
	logFormat string
	trace     string

	logger  zerolog.Logger
	tracer  *bridge.Trace
	closers []io.Closer
}

// newApp builds the command line. Help and errors go to stderr: stdout is
// reserved for ACP (urfave/cli writes usage to App.Writer, stdout by default).
func newApp() *cli.App {
	g := &globals{}
	return &cli.App{
		Name:      "acpbridge",
		Usage:     "use any command-line coding agent from any ACP editor",
		Version:   version,
		Writer:    os.Stderr,
		ErrWriter: os.Stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{"ACPBRIDGE_LOG_LEVEL"},
				Usage: "trace, debug, info, warn, error or disabled", Destination: &g.logLevel},
			&cli.StringFlag{Name: "log-file", EnvVars: []string{"ACPBRIDGE_LOG_FILE"},
				Usage: "write logs (zerolog JSON) to `FILE` instead of stderr", Destination: &g.logFile},
			&cli.StringFlag{Name: "log-format", EnvVars: []string{"ACPBRIDGE_LOG_FORMAT"},
				Usage: "json or console (default: console when stderr is a terminal)", Destination: &g.logFormat},
			&cli.StringFlag{Name: "trace", EnvVars: []string{"ACPBRIDGE_TRACE"},
				Usage:       "append every JSON-RPC frame read or written, on both sides, to `FILE` (one JSON line each)",
				Destination: &g.trace},
		},
		Before: g.setup,
		After:  g.teardown,
		Commands: append([]*cli.Command{
			claudeCommand(g, g.serveStdio),
			replayCommand(g, g.serveStdio),
			serveCommand(g),
			agentsCommand(os.Stdout),
		}, passthroughCommands(g, g.serveStdio)...),
		HideHelpCommand: true,
	}
}

func (g *globals) setup(c *cli.Context) error {
	level, err := zerolog.ParseLevel(g.logLevel)
	if err != nil {
		return cli.Exit(fmt.Sprintf("--log-level: %v", err), 2)
	}
	var out io.Writer = os.Stderr
	if g.logFile != "" {
		f, err := os.OpenFile(g.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return cli.Exit(fmt.Sprintf("--log-file: %v", err), 2)
		}
		g.closers = append(g.closers, f)
		out = f
	}
	switch g.logFormat {
	case "json":
	case "console":
		out = zerolog.ConsoleWriter{Out: out}
	case "":
		if g.logFile == "" && isTerminal(os.Stderr) {
			out = zerolog.ConsoleWriter{Out: out}
		}
	default:
		return cli.Exit("--log-format must be json or console", 2)
	}
	g.logger = zerolog.New(out).Level(level).With().Timestamp().Logger()
	c.Context = g.logger.WithContext(c.Context)
	if g.trace != "" {
		f, err := os.OpenFile(g.trace, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return cli.Exit(fmt.Sprintf("--trace: %v", err), 2)
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

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// traceAgent is the adapter-side trace hook, nil when tracing is off.
func (g *globals) traceAgent() func(bool, []byte) {
	if g.tracer == nil {
		return nil
	}
	return g.tracer.Agent
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
	srv := bridge.New(a, bridge.Options{Version: version, Logger: g.logger, Trace: g.tracer})
	defer a.Close()
	in := stdin()
	defer in.Close()
	return srv.ServeStdio(c.Context, in, os.Stdout)
}
