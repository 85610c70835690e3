// Package dialects serves any Claude-Code-style CLI, one that speaks Claude
// Code's stream-JSON control protocol under names of its own, through the
// shared engine (adapters/internal/streamjson) and a dialect: a built-in
// one (claude, qwen) or a TOML file a user writes (streamjson.ParseDialect;
// the format is in docs/stream-json-dialects.md).
//
// A dialect whose transcripts the engine reads (claude) is served with
// load, resume, list and delete; any other with the contract's required
// methods only, so the editor is offered nothing the CLI cannot do.
//
// The package imports bridge/acp and adapters/internal, never the bridge
// package or another adapter.
package dialects

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/acpbridge/acpbridge/adapters/internal/streamjson"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Dialect is one CLI's dialect of the protocol.
type Dialect = streamjson.Dialect

// Options configure an adapter; see streamjson.Options. Dialect is required.
type Options = streamjson.Options

// Defaults of Options, as the engine has them.
const (
	DefaultReadWindow   = streamjson.DefaultReadWindow
	DefaultStartTimeout = streamjson.DefaultStartTimeout
)

// New returns an adapter for opts.Dialect's CLI.
func New(opts Options) acp.Adapter {
	if opts.Dialect == nil {
		opts.Dialect = streamjson.Claude()
	}
	return streamjson.New(opts).Contract()
}

// Builtin returns the built-in dialect called name.
func Builtin(name string) (*Dialect, bool) {
	switch name {
	case "claude":
		return streamjson.Claude(), true
	case "qwen":
		return streamjson.Qwen(), true
	}
	return nil, false
}

// Builtins are the names of the built-in dialects.
func Builtins() []string { return []string{"claude", "qwen"} }

// Load returns the built-in dialect called nameOrFile, or reads the dialect
// file of that path. Errors name the file and line.
func Load(nameOrFile string) (*Dialect, error) {
	if d, ok := Builtin(nameOrFile); ok {
		return d, nil
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		if !strings.ContainsAny(nameOrFile, "/.") {
			return nil, fmt.Errorf("%q is neither a built-in dialect (%s) nor a file: %w",
				nameOrFile, strings.Join(Builtins(), ", "), err)
		}
		return nil, fmt.Errorf("reading dialect: %w", err)
	}
	return streamjson.ParseDialect(nameOrFile, data)
}

// Print returns the dialect file of the built-in dialect name: the
// template a user's own starts from.
func Print(name string) ([]byte, error) {
	d, ok := Builtin(name)
	if !ok {
		return nil, fmt.Errorf("no built-in dialect %q (there are %s)", name, strings.Join(Builtins(), ", "))
	}
	return streamjson.PrintDialect(d)
}

// Modes are the ids of a dialect's permission modes.
func Modes(d *Dialect) []string {
	out := make([]string, 0, len(d.Modes))
	for _, m := range d.Modes {
		out = append(out, m.ID)
	}
	return slices.Clip(out)
}
