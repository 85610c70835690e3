// Package claude serves ACP sessions from Claude Code, driven over its
// stream-JSON control protocol (claude --input-format stream-json
// --output-format stream-json --permission-prompt-tool stdio).
//
// The engine that speaks that protocol is adapters/internal/streamjson,
// shared with the other Claude-Code-style CLIs; this package is Claude
// Code's place in it: the built-in claude dialect (its flags, tools,
// modes, transcripts and extensions), served with every optional
// interface of the contract (load, resume, list, delete, fork). See the
// engine's package doc for how sessions and turns run.
//
// The package imports bridge/acp and adapters/internal, never the bridge
// package or another adapter.
package claude

import (
	"github.com/acpbridge/acpbridge/adapters/internal/streamjson"
	"github.com/acpbridge/acpbridge/bridge/acp"
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

// The contract's optional interfaces Claude Code serves: a signature that
// drifts from bridge/acp's fails the build rather than dropping the
// capability.
var (
	_ acp.Adapter = (*Adapter)(nil)
	_ acp.Loader  = (*Adapter)(nil)
	_ acp.Resumer = (*Adapter)(nil)
	_ acp.Lister  = (*Adapter)(nil)
	_ acp.Deleter = (*Adapter)(nil)
	_ acp.Forker  = (*Adapter)(nil)
	_ acp.Steerer = (*Adapter)(nil)
)

// New returns an Adapter for Claude Code.
func New(opts Options) *Adapter {
	opts.Dialect = streamjson.Claude()
	return streamjson.New(opts)
}

// Dialect is Claude Code's dialect, the template for dialect files.
func Dialect() *streamjson.Dialect { return streamjson.Claude() }
