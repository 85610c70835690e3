package replay

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/replay/rpcplayer"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// PlayerOptions configure Launcher.
type PlayerOptions struct {
	// NewSessionID returns the session (or thread) id a new agent process
	// uses where the recording has its own (default: random), so sessions
	// replayed side by side do not share one.
	NewSessionID func() string
	// Pace is a delay before each recorded output line (default none).
	Pace time.Duration
	// Log, if set, receives the player's notes (unexpected input, turns
	// it cannot follow).
	Log io.Writer
}

// Launcher returns the launcher of a JSON-RPC recording (meta "adapter:
// acp" or "adapter: codex"): every process the wrapped adapter starts is an
// in-process player of rec's agent script (adapters/replay/rpcplayer). A recording
// file that went away or changed fails the start.
func Launcher(rec *recording.Recording, opts PlayerOptions) (Launch, error) {
	var pr rpcplayer.Protocol
	switch kind := rec.Meta["adapter"]; kind {
	case "acp":
		pr = rpcplayer.ACP{}
	case "codex":
		pr = rpcplayer.Codex{}
	default:
		return nil, fmt.Errorf("replaying %s: adapter %q is not a JSON-RPC recording", rec.Path, kind)
	}
	if rec.Steps == 0 {
		return nil, fmt.Errorf("replaying %s: no %s section", rec.Path, recording.SectionAgent)
	}
	if opts.NewSessionID == nil {
		opts.NewSessionID = rand.Text
	}
	return func(_ context.Context, spec proc.Spec) (proc.Process, error) {
		if err := rec.Check(); err != nil {
			return nil, fmt.Errorf("replaying: %w", err)
		}
		po := rpcplayer.Options{Protocol: pr, SessionID: opts.NewSessionID(), RecordedSessionID: rec.Meta["session"],
			Pace: opts.Pace, Logger: opts.Log}
		return proc.InProcess(spec.Name, func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
			return rpcplayer.Play(ctx, rec.Script, stdin, stdout, po)
		}), nil
	}, nil
}
