// Command acpbridge is an ACP agent for editors that wraps command-line coding
// agents: it speaks ACP v1 on stdin/stdout and the wrapped CLI's native
// protocol to a child process. While it serves, only ACP frames go to
// stdout; logs go to stderr or --log-file. --help and --version, which serve
// no ACP, answer on stdout.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed editor pipe must surface as EPIPE on write, so the normal
	// shutdown path runs and stops the children; without this the runtime
	// dies on SIGPIPE and orphans them. Notify, not Ignore: exec'd children
	// would inherit SIG_IGN.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
