//go:build !race

package native_test

import (
	"runtime"
	"testing"
)

// The race detector allocates for its own bookkeeping, so this file is left
// out of race builds; make test runs it in a run of its own.

// TestPassthroughAllocations bounds the allocations of the bridge and the
// adapter (this process; the agent is another) per update a turn streams.
// A count is the same on a loaded machine, where the throughput figure of
// BenchmarkPassthroughTurn is not: today about 0.01 per update (the frames
// are forwarded as they came); one allocation per update again fails.
func TestPassthroughAllocations(t *testing.T) {
	const updates = 20_000
	p := startPassthrough(t)
	p.turn(10, updates) // warm: buffers grow to their size once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p.turn(11, updates)
	runtime.ReadMemStats(&after)
	per := float64(after.Mallocs-before.Mallocs) / updates
	t.Logf("%.3f allocations per update (%d in the turn)", per, after.Mallocs-before.Mallocs)
	if per > 0.25 {
		t.Errorf("%.3f allocations per forwarded update, want at most 0.25", per)
	}
}
