// Command testreport runs `go test -json` (or reads its output on stdin)
// and prints what a person needs from it: a line per package, the whole
// output of every failing test and package, the skipped tests with their
// reasons, and a last line
//
//	tests: N passed, N failed, N skipped
//
// It exits non-zero when a test or a build failed, when go test itself
// failed, and, under CI=true, when any test skipped: in CI a test that
// skips for a missing dependency hides that the dependency is missing.
//
// Usage:
//
//	go run ./cmd/dev/testreport [-go GO] [--] GO-TEST-ARGS...   # runs GO test -json ARGS
//	go test -json ./... | go run ./cmd/dev/testreport            # reads stdin
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	goBin := fs.String("go", "go", "the go command")
	ci := fs.Bool("ci", os.Getenv("CI") == "true", "fail when a test skips (default: CI=true)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		s, err := report(stdin, stdout)
		finish(stdout, s, *ci)
		if err != nil {
			fmt.Fprintln(stderr, "testreport:", err)
			return 1
		}
		return exitCode(s, *ci, nil)
	}
	cmd := exec.Command(*goBin, append([]string{"test", "-json"}, fs.Args()...)...)
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testreport:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testreport:", err)
		return 1
	}
	s, rerr := report(pipe, stdout)
	if rerr != nil {
		// Keep draining, so go test is not blocked on a full pipe.
		_, _ = io.Copy(io.Discard, pipe)
	}
	werr := cmd.Wait()
	finish(stdout, s, *ci)
	if rerr != nil {
		fmt.Fprintln(stderr, "testreport:", rerr)
		return 1
	}
	return exitCode(s, *ci, werr)
}

// exitCode is 1 for a failed run: a failure or, under ci, a skip in the
// stream, or go test failing (a setup error that produced no events).
func exitCode(s summary, ci bool, wait error) int {
	if !s.ok(ci) || wait != nil {
		return 1
	}
	return 0
}
