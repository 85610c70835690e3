package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/pty"
)

// ptyNotifyCommand is the reporter a PTY profile's [signal] section has the
// agent run from its own hooks (Codex notify, Claude Code hooks): it copies
// its arguments and stdin to the session's socket. It is hidden: people
// never type it, and it is this binary so that every machine has it.
func ptyNotifyCommand() *cli.Command {
	return &cli.Command{
		Name:            pty.NotifyCommand,
		Usage:           "report an agent's hook event to the bridge's PTY session (run by the agent)",
		ArgsUsage:       "SOCKET [EVENT...]",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usageError(c, pty.NotifyCommand+" needs the socket's path")
			}
			if err := pty.Notify(c.Args().First(), c.Args().Tail(), os.Stdin); err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return nil
		},
	}
}
