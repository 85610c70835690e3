package codex

import (
	"io"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/readwindow"
)

// DefaultReadWindow is the ReadWindow of a zero Options: a streamed delta
// waits at most 1 ms, far below what an editor can show, and a fast stream
// is read in batches of tens of lines instead of one at a time.
const DefaultReadWindow = time.Millisecond

// windowed returns the app-server's output r read through a read window
// (adapters/internal/readwindow), under the JSON-RPC reader: Codex writes
// every delta as a line of its own, and the turn sends the text deltas of
// a batch as one chunk (turn.gather). A window of zero or less reads r as
// it is.
func windowed(r io.Reader, window time.Duration) io.Reader {
	if window <= 0 {
		return r
	}
	w := readwindow.New(r, window)
	return &w
}
