//go:build !linux && !windows

package proc

import (
	"time"

	"github.com/rs/zerolog"
)

// becomeSubreaper is Linux only: elsewhere (macOS) orphans of the agent go
// to init (launchd), out of reach.
func becomeSubreaper(zerolog.Logger) {}

// tree is Linux only (it reads /proc). Elsewhere only the agent's process
// group is stopped: a process the agent moved to another group or session
// and that outlives the agent is not found.
type tree struct{}

func newTree(int, string) *tree                       { return &tree{} }
func (*tree) observe(bool)                            {}
func (*tree) kill(time.Duration, zerolog.Logger) bool { return true }
