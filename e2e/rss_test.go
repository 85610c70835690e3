//go:build linux && !race

package e2e

import (
	"testing"
)

// replayPeakRSSTarget is BenchmarkReplayThroughput's peak RSS target
// (cmd/dev/benchtable: MB-peak-RSS < 20), in bytes.
const replayPeakRSSTarget = 20 << 20

// replayRSSRuns is how many times TestReplayPeakRSS replays the fixture.
const replayRSSRuns = 3

// TestReplayPeakRSS holds the shipped binary to the replay's peak RSS
// target outside make bench, so that a change that misses it fails the
// tests: it replays the benchmark's fixture (one turn of 100,000 text
// deltas, 29 MB, whose last frames repeat the 600 KB reply) through the
// binary, as BenchmarkReplayThroughput does, and reads the bridge's peak
// resident set from /proc (VmHWM).
//
// Unlike a rate, the figure hardly depends on the machine's load: it is
// the binary's pages that the run touches plus the heap the turn needs,
// and timing only adds to it (when the garbage collector runs, how much
// output waits to be read), by up to 1.5 MB on a loaded machine. So the
// figure is the least of a few runs. Race builds allocate for the
// detector: this file is left out of them, and make test runs it in its
// second, non-race run.
func TestReplayPeakRSS(t *testing.T) {
	path := writeTextTurn(t, throughputDeltas)
	least := int64(0)
	for i := range replayRSSRuns {
		r, err := replayTurn(t.Context(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.chunks != throughputDeltas || r.stopReason != "end_turn" {
			t.Fatalf("%d agent_message_chunk updates and stopReason %q; want %d and end_turn",
				r.chunks, r.stopReason, throughputDeltas)
		}
		t.Logf("run %d: peak RSS %.1f MB", i+1, float64(r.maxRSS)/(1<<20))
		if i == 0 || r.maxRSS < least {
			least = r.maxRSS
		}
	}
	mb := float64(least) / (1 << 20)
	if least >= replayPeakRSSTarget {
		t.Fatalf("replaying %d deltas: peak RSS %.1f MB (the least of %d runs), want < %d MB",
			throughputDeltas, mb, replayRSSRuns, replayPeakRSSTarget>>20)
	}
	t.Logf("peak RSS %.1f MB (the least of %d runs; target < %d MB)", mb, replayRSSRuns, replayPeakRSSTarget>>20)
}
