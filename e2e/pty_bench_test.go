//go:build unix

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPTYSession measures the memory of `acpbridge pty` serving the
// fake TUI (cmd/dev/faketui): each op starts a bridge, opens sessions (each a
// PTY and a 200×50 terminal emulator), runs a text turn in each, and reads
// the bridge's peak resident set before it exits.
//
//	MB-RSS/pty-session  the bridge's peak RSS divided by its sessions
//	                    (target < 30)
func BenchmarkPTYSession(b *testing.B) {
	skipUnderRace(b)
	tui := buildFakeTUI(b)
	for _, sessions := range []int{1, 4} {
		b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) {
			var peak int64
			for b.Loop() {
				rss, err := ptySessions(b.Context(), tui, sessions)
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, rss)
			}
			b.ReportMetric(float64(peak)/(1<<20)/float64(sessions), "MB-RSS/pty-session")
		})
	}
}

// ptySessions runs n sessions of one turn each on one `acpbridge pty` and
// returns its peak RSS in bytes.
func ptySessions(ctx context.Context, tui string, n int) (int64, error) {
	br, err := spawnBridgeArgs(ctx, "pty", "--", tui)
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			br.kill()
		}
	}()
	if _, err := br.initialize(); err != nil {
		return 0, err
	}
	for i := range n {
		sid, err := br.newSession(br.dir)
		if err != nil {
			return 0, err
		}
		var said strings.Builder
		res, err := br.call("session/prompt", map[string]any{"sessionId": sid,
			"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("hello %d", i)}}},
			func(line []byte) { said.Write(line) })
		if err != nil {
			return 0, err
		}
		if !strings.Contains(string(res), "end_turn") || !strings.Contains(said.String(), `"text":"Hello`) {
			return 0, fmt.Errorf("turn %d answered %s after %s", i, res, said.String())
		}
	}
	ok = true
	return br.finish()
}
