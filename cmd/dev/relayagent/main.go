// Command relayagent runs the scripted CLI of fixtures/testsupport/dialectagent
// on stdin and stdout: Claude Code's stream-JSON protocol with every message
// and tool renamed, the "relay" dialect of its relay.toml. It is the child
// process of the end-to-end test of `acpbridge stream-json --dialect FILE --
// relayagent`, and lets a person try a dialect file by hand:
//
//	acpbridge stream-json --dialect fixtures/testsupport/dialectagent/relay.toml -- relayagent --stream
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/dialectagent"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dialectagent.Run(ctx, os.Stdin, os.Stdout, dialectagent.Options{SessionID: os.Getenv("RELAY_SESSION_ID")}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "relayagent:", err)
		os.Exit(1)
	}
}
