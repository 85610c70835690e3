// Command mcpserver is a tiny MCP server over stdio (fixtures/testsupport/mcpserver) for
// end-to-end tests and manual runs: give it to an agent as a client MCP
// server, e.g. in an ACP session/new
//
//	"mcpServers": [{"name": "e2e", "command": "/path/to/mcpserver", "args": ["-calls", "/tmp/calls.jsonl"], "env": []}]
//
// It offers the tools "add" and "echo". With -calls FILE every tools/call it
// answers is appended to FILE as one JSON line (tool, arguments, result,
// isError), so a test can check what the agent really called. Diagnostics go
// to stderr; stdout carries only MCP messages.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/mcpserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

func run() error {
	name := flag.String("name", "mcpserver", "server name reported at initialize")
	calls := flag.String("calls", "", "append each answered tools/call to `FILE` as a JSON line")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := mcpserver.Options{Name: *name}
	var werr error
	if *calls != "" {
		f, err := os.OpenFile(*calls, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		// Serve answers one message at a time, so OnCall is never concurrent.
		opts.OnCall = func(c mcpserver.Call) {
			b, err := json.Marshal(c)
			if err == nil {
				_, err = f.Write(append(b, '\n'))
			}
			if err != nil && werr == nil {
				werr = err
			}
		}
	}
	if err := mcpserver.Serve(ctx, os.Stdin, os.Stdout, opts); err != nil {
		return err
	}
	return werr
}
