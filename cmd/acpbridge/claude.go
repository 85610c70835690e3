package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/bridge"
)

// claudeFlags are the flags of Claude Code's command, and the constructor
// of its adapter.
func claudeFlags(d adapterEntry) ([]cli.Flag, buildFunc) {
	var o claude.Options
	flags := []cli.Flag{
		d.pathOption(&o.Path),
		&cli.StringFlag{Name: "permission-mode", EnvVars: []string{"ACPBRIDGE_CLAUDE_PERMISSION_MODE"},
			Usage: "initial mode: default, acceptEdits, plan, dontAsk, bypassPermissions or auto", Destination: &o.PermissionMode},
		&cli.StringFlag{Name: "model", EnvVars: []string{"ACPBRIDGE_CLAUDE_MODEL"},
			Usage: "initial `MODEL`, the CLI's default when empty (e.g. sonnet)", Destination: &o.Model},
		&cli.DurationFlag{Name: "start-timeout", Value: claude.DefaultStartTimeout, EnvVars: []string{"ACPBRIDGE_CLAUDE_START_TIMEOUT"},
			Usage: "how long a starting CLI may take to answer its initialize request before it is stopped and the prompt fails", Destination: &o.StartTimeout},
		&cli.StringFlag{Name: "model-cache", EnvVars: []string{"ACPBRIDGE_CLAUDE_MODEL_CACHE"},
			Usage: "file that keeps the CLI's model list between runs, so a new session lists the models at once (default: claude-models.json in the user's cache dir; - keeps it in memory)", Destination: &o.ModelCache},
		&cli.DurationFlag{Name: "read-window", Value: claude.DefaultReadWindow, EnvVars: []string{"ACPBRIDGE_CLAUDE_READ_WINDOW"},
			Usage: "while the CLI streams fast, let its output gather this long between reads; the deltas of one read go out as one chunk (0: read every line at once)", Destination: &o.ReadWindow},
		&cli.BoolFlag{Name: "editor-fs", Value: true, EnvVars: []string{"ACPBRIDGE_CLAUDE_EDITOR_FS"},
			Usage: "when the editor can read and write files, Claude's reads, writes and edits go through it (its review, its unsaved buffers)", Destination: &o.EditorFS},
		&cli.BoolFlag{Name: "no-editor-fs", Usage: "Claude reads and writes the disk itself, even when the editor offers its files (same as --editor-fs=false)"},
	}
	return flags, func(c *cli.Context, w wiring) (bridge.Adapter, error) {
		if c.Bool("no-editor-fs") {
			o.EditorFS = false
		}
		switch o.PermissionMode {
		case "", "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto":
		default:
			return nil, usageError(c, fmt.Sprintf("--permission-mode %q is not one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto", o.PermissionMode))
		}
		if o.StartTimeout <= 0 {
			return nil, usageError(c, fmt.Sprintf("--start-timeout %v is not positive", o.StartTimeout))
		}
		if o.ReadWindow < 0 {
			return nil, usageError(c, fmt.Sprintf("--read-window %v is negative", o.ReadWindow))
		}
		o.ExtraArgs = c.Args().Slice()
		o.Logger, o.Trace, o.StopGrace = w.logger, w.trace, w.stopGrace
		return claude.New(o), nil
	}
}
