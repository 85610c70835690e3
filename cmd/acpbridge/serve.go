package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/bridge"
)

// httpServe holds the serve command's flags.
type httpServe struct {
	g              *globals
	host           string
	port           int
	token          string
	allowedHosts   cli.StringSlice
	allowedOrigins cli.StringSlice
	idleTimeout    time.Duration
	maxConnections int
	maxBody        int64
}

// serveCommand is `acpbridge serve [FLAGS] ADAPTER [ADAPTER FLAGS...]`: the
// adapter commands again, served over HTTP instead of stdio. They, and the
// description that names them, are made by addAdapters, which the command
// line calls once it names serve (to run it or show its help): every other
// run would make them for nothing.
func serveCommand(g *globals) (cmd *cli.Command, addAdapters func()) {
	s := &httpServe{g: g}
	cmd = &cli.Command{
		Name:      "serve",
		Usage:     "serve ACP over HTTP, for clients that are not the agent's parent process (web IDEs, remote hosts)",
		ArgsUsage: "ADAPTER [ADAPTER FLAGS...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Value: "127.0.0.1", EnvVars: []string{"ACPBRIDGE_HOST"},
				Usage: "address to listen on; anything but loopback requires --token", Destination: &s.host},
			&cli.IntFlag{Name: "port", Value: 8765, EnvVars: []string{"ACPBRIDGE_PORT"},
				Usage: "TCP port to listen on (0 picks a free one)", Destination: &s.port},
			&cli.StringFlag{Name: "token", EnvVars: []string{"ACPBRIDGE_TOKEN"},
				Usage: "require `TOKEN` from every request as Authorization: Bearer TOKEN", Destination: &s.token},
			&cli.StringSliceFlag{Name: "allowed-host", EnvVars: []string{"ACPBRIDGE_ALLOWED_HOSTS"},
				Usage: "also accept this `NAME` in the Host header (a reverse proxy's public name)", Destination: &s.allowedHosts},
			&cli.StringSliceFlag{Name: "allowed-origin", EnvVars: []string{"ACPBRIDGE_ALLOWED_ORIGINS"},
				Usage: "also accept browser requests from this `ORIGIN` (https://ide.example.com), with CORS", Destination: &s.allowedOrigins},
			&cli.DurationFlag{Name: "idle-timeout", Value: 5 * time.Minute, EnvVars: []string{"ACPBRIDGE_IDLE_TIMEOUT"},
				Usage: "close a connection with no open stream and no request for this long, stopping its sessions", Destination: &s.idleTimeout},
			&cli.IntFlag{Name: "max-connections", Value: 100, EnvVars: []string{"ACPBRIDGE_MAX_CONNECTIONS"},
				Usage: "refuse more open connections than this with 503", Destination: &s.maxConnections},
			&cli.Int64Flag{Name: "max-body", Value: 16 << 20, EnvVars: []string{"ACPBRIDGE_MAX_BODY"},
				Usage: "refuse a POSTed message larger than this many bytes with 413", Destination: &s.maxBody},
		},
		// Reached only when no adapter command follows.
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError(c, fmt.Sprintf("serve needs an adapter to serve (%s)", commandNames(c.Command.Subcommands)))
			}
			return usageError(c, fmt.Sprintf("serve: unknown adapter %q (%s)", c.Args().First(), commandNames(c.Command.Subcommands)))
		},
		HideHelpCommand: true,
	}
	return cmd, func() {
		if cmd.Subcommands != nil {
			return
		}
		translating, native := adapterCommands(g, s.serve)
		cmd.Subcommands = append(translating, native...)
		quietUsage(cmd.Subcommands)
		cmd.Description = "Serves the adapter named next (" + someNames(cmd.Subcommands) + ") to any number of HTTP clients, each with its own\n" +
			"ACP connection and sessions. Endpoints: /acp (ACP Streamable HTTP, as the TypeScript SDK's\n" +
			"experimental HTTP client speaks it), /acp/rpc?client_id=ID and /acp/sse?client_id=ID.\n" +
			"Loopback only unless --token is set."
	}
}

// someNames names the first few of cmds, for a sentence; the help's list of
// commands names them all.
func someNames(cmds []*cli.Command) string {
	const few = 6
	if len(cmds) <= few {
		return commandNames(cmds)
	}
	return commandNames(cmds[:few]) + ", ..."
}

// serve runs the bridge for a over HTTP until the process is told to stop.
func (s *httpServe) serve(c *cli.Context, a bridge.Adapter) error {
	defer a.Close()
	if err := s.check(c); err != nil {
		return err
	}
	addr := net.JoinHostPort(s.host, strconv.Itoa(s.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cli.Exit(fmt.Sprintf("listening on %s: %v", addr, err), 1)
	}
	opts := bridge.HTTPOptions{
		Token:          s.token,
		AllowedHosts:   s.allowedHosts.Value(),
		AllowedOrigins: s.allowedOrigins.Value(),
		MaxBodySize:    s.maxBody,
		MaxConnections: s.maxConnections,
		IdleTimeout:    s.idleTimeout,
	}
	if s.host != "" && net.ParseIP(s.host) == nil {
		opts.AllowedHosts = append(opts.AllowedHosts, s.host)
	}
	log := s.g.logger
	url, all := listenURL(s.host, ln.Addr())
	ev := log.Info().Str("addr", ln.Addr().String()).Str("url", url).Bool("token", s.token != "")
	if all {
		ev = ev.Str("interfaces", "all")
	}
	ev.Msg("listening")
	srv := bridge.New(a, bridge.Options{Version: semver(), Logger: log, Trace: s.g.tracer})
	err = srv.ServeListener(c.Context, ln, opts)
	log.Info().Msg("stopped serving")
	return err
}

// check validates the flags: a token is required off loopback.
func (s *httpServe) check(c *cli.Context) error {
	// The flags are serve's, though c is the served adapter's command.
	for _, l := range c.Lineage() {
		if l.Command != nil && l.Command.Name == "serve" {
			c = l
			break
		}
	}
	if s.port < 0 || s.port > 65535 {
		return usageError(c, fmt.Sprintf("--port %d is not a TCP port", s.port))
	}
	for _, n := range []struct {
		name string
		v    int64
	}{{"--max-connections", int64(s.maxConnections)}, {"--max-body", s.maxBody}, {"--idle-timeout", int64(s.idleTimeout)}} {
		if n.v <= 0 {
			return usageError(c, n.name+" must be positive")
		}
	}
	if s.token == "" && !isLoopbackHost(s.host) {
		return usageError(c, fmt.Sprintf("--host %q is not a loopback address: set --token (or ACPBRIDGE_TOKEN) "+
			"so that only clients that have it get in", s.host))
	}
	return nil
}

// listenURL is the URL to print for a listener on host: one a person can
// open. A listener on every interface ("0.0.0.0", "::" or "") reports its
// address as "[::]:PORT" or "0.0.0.0:PORT", which no browser or client
// reaches; it is reached on loopback from this machine (and on any of its
// addresses from others), so the URL names loopback and all reports that it
// listens on every interface. A host name stays as given, an IPv6 literal
// is bracketed.
func listenURL(host string, addr net.Addr) (url string, all bool) {
	port := "0"
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	} else if _, p, err := net.SplitHostPort(addr.String()); err == nil {
		port = p
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified() && ip.To4() != nil):
		host, all = "127.0.0.1", true
	case ip != nil && ip.IsUnspecified():
		host, all = "::1", true
	}
	return "http://" + net.JoinHostPort(host, port) + "/acp", all
}

// isLoopbackHost reports whether host names only this machine.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
