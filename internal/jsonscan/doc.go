// Package jsonscan reads JSON text in place, a byte at a time, without
// decoding it: the bridge's hot paths look at a few members of each line
// an agent or an editor writes (a JSON-RPC message's id and method, a
// stream-JSON delta's text, an update's discriminator) and pass the rest
// on as it is, and decoding every line to find them cost more than
// everything else the bridge does with it.
//
// It has two readers, for two kinds of input:
//
//   - [Scanner] validates as it goes (RFC 8259, the grammar json.Valid and
//     gjson.Valid accept: strings are not checked for valid UTF-8), with a
//     bound on nesting, and reads an object's members through a callback.
//     It is for input nobody has checked yet: [Valid] is the whole-line
//     check, and a caller that reads members with it checks the line and
//     reads it in one pass.
//   - [Lax] skims: it finds its way through objects and skips values by
//     their brackets and quotes, without validating what it skips, and
//     tells running out of input from a syntax error. It is for input
//     known to be valid (a line the caller has validated) and for the
//     head of a message cut anywhere.
//
// What the members mean is the callers' business (internal/jsonrpc's
// split and scanHead, adapters/claude's delta reader, the stream player's
// line kinds, the passthrough's update kind): this package knows only
// JSON. FuzzScan holds both readers to encoding/json.
//
// The package imports only the standard library, so that the JSON-RPC
// engine (internal/jsonrpc), which imports nothing else, may import it.
// It must not import anything of the bridge or the adapters.
package jsonscan
