// Package claude serves ACP sessions from Claude Code, driven over its
// stream-JSON control protocol (claude --input-format stream-json
// --output-format stream-json --permission-prompt-tool stdio).
//
// The engine that speaks that protocol is adapters/internal/streamjson,
// shared with the other Claude-Code-style CLIs; this package is Claude
// Code's place in it: the built-in claude dialect (its flags, tools,
// modes, transcripts and extensions), served with every optional
// interface of the contract (load, resume, list, delete, fork, steering),
// which the engine asserts. See the engine's package doc for how sessions
// and turns run.
//
// The package imports adapters/internal only, never the bridge package or
// another adapter.
package claude

import (
	"github.com/acpbridge/acpbridge/adapters/internal/streamjson"
)

// Options configure an Adapter; see streamjson.Options. The dialect is
// always Claude Code's.
type Options = streamjson.Options

// Adapter serves ACP sessions from Claude Code.
type Adapter = streamjson.Adapter

// Defaults of Options, as the engine has them.
const (
	DefaultReadWindow   = streamjson.DefaultReadWindow
	DefaultCancelGrace  = streamjson.DefaultCancelGrace
	DefaultStartTimeout = streamjson.DefaultStartTimeout
)

// New returns an Adapter for Claude Code.
func New(opts Options) *Adapter {
	opts.Dialect = streamjson.Claude()
	return streamjson.New(opts)
}

// Dialect is Claude Code's dialect, the template for dialect files.
func Dialect() *streamjson.Dialect { return streamjson.Claude() }
