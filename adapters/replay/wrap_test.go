package replay

import (
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// claudeOptions are Options whose Wrap builds Claude Code's adapter, as
// cmd/acpbridge does (the tests may import an adapter; the package may not):
// sid, if set, is every new session's id; stopGrace, if set, shortens stops;
// logs go to t when it is not nil.
func claudeOptions(t testing.TB, sid string, stopGrace time.Duration) Options {
	log := zerolog.Nop()
	if t != nil {
		log = zerolog.New(zerolog.NewTestWriter(t))
	}
	return Options{Wrap: func(launch Launch) acp.Adapter {
		o := claude.Options{Path: "claude", Launch: launch, AwaitStart: true, StopGrace: stopGrace,
			Logger: log}
		if sid != "" {
			o.NewSessionID = func() string { return sid }
		}
		return claude.New(o)
	}}
}
