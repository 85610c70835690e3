//go:build !race

package replay_test

import (
	"runtime"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/gen"
)

// The race detector allocates for its own bookkeeping, so this file is left
// out of race builds; make test runs it in a run of its own.

// TestTextTurnAllocations bounds the allocations of a replayed Claude Code
// turn per streamed delta: the player, the Claude adapter and the bridge,
// all in this process (BenchmarkTextTurn's turn). A count is the same on a
// loaded machine, where a rate is not. Today about 2.55 per delta: the
// delta's text, its chunk with its content block, and a share of the rest;
// the chunk and the block apart again (3.55), or the bridge copying each
// update to the heap (two more), fails.
func TestTextTurnAllocations(t *testing.T) {
	const deltas = 20_000
	fx := gen.TextTurn(deltas)
	turn := func() {
		chunks, err := playTurn(t.Context(), fx, func(ad *replay.Adapter) *bridge.Server {
			return bridge.New(ad, bridge.Options{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if chunks != deltas {
			t.Fatalf("%d chunks, want %d", chunks, deltas)
		}
	}
	turn() // warm: caches and pools fill once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	turn()
	runtime.ReadMemStats(&after)
	per := float64(after.Mallocs-before.Mallocs) / deltas
	t.Logf("%.2f allocations per delta (%d in the session)", per, after.Mallocs-before.Mallocs)
	if per > 3 {
		t.Errorf("%.2f allocations per replayed delta, want at most 3", per)
	}
}
