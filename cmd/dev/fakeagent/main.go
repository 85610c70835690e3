// Command fakeagent plays the CLI side of a recorded fixture on its own
// stdin/stdout, so a bridge (or a person with an editor) can talk to a
// recording as if the real CLI were running. Logs go to stderr.
//
//	fakeagent [--session-id ID] [--pace DURATION] FIXTURE.txtar [other CLI arguments]
//
// The fixture is the first argument ending in ".txtar", or the file named by
// ACPBRIDGE_FAKEAGENT. Arguments it does not know are ignored, so fakeagent
// can stand in for the wrapped CLI under that CLI's own command line; a
// --session-id there (as the bridge passes for a new session) becomes the
// session id of the replayed stream.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acpbridge/acpbridge/adapters/replay/streamplayer"
)

const usage = "usage: fakeagent [--session-id ID] [--pace DURATION] FIXTURE.txtar [ignored CLI arguments]"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, opts, err := parseArgs(args, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "fakeagent: %v\n%s\n", err, usage)
		return 2
	}
	opts.Logger = stderr
	fmt.Fprintf(stderr, "fakeagent: playing %s\n", path)
	if err := streamplayer.PlayFile(ctx, path, stdin, stdout, opts); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "fakeagent: stopped by a signal")
		} else {
			fmt.Fprintf(stderr, "fakeagent: %v\n", err)
		}
		return 1
	}
	return 0
}

func parseArgs(args []string, getenv func(string) string) (path string, opts streamplayer.Options, err error) {
	path = getenv("ACPBRIDGE_FAKEAGENT")
	fromArgs := false
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		switch name {
		case "-h", "-help", "--help":
			return "", opts, errors.New("help requested")
		case "--session-id", "-session-id", "--pace", "-pace":
			if !hasValue {
				if i+1 >= len(args) {
					return "", opts, fmt.Errorf("%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if strings.HasSuffix(name, "session-id") {
				opts.SessionID = value
			} else if opts.Pace, err = time.ParseDuration(value); err != nil {
				return "", opts, fmt.Errorf("bad %s: %w", name, err)
			}
		default:
			if !fromArgs && strings.HasSuffix(args[i], ".txtar") {
				path, fromArgs = args[i], true
			}
		}
	}
	if path == "" {
		return "", opts, errors.New("no fixture given")
	}
	return path, opts, nil
}
