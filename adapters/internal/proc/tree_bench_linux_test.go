//go:build linux

package proc

import (
	"os"
	"testing"
)

// BenchmarkTreeScan is the periodic scan of an agent's process tree (once
// a second per running agent): one read of /proc/PID/stat per process on
// the machine. The processes metric is how many there were, to compare machines.
func BenchmarkTreeScan(b *testing.B) {
	t := newTree(os.Getpid(), markerEnv+"=bench")
	for b.Loop() {
		t.observe(false)
	}
	b.ReportMetric(float64(len(scanProcs())), "processes")
}

// BenchmarkTreeKillScan is the scan when a tree is killed: it also reads
// the environment of every readable process, looking for the marker.
func BenchmarkTreeKillScan(b *testing.B) {
	t := newTree(os.Getpid(), markerEnv+"=bench")
	for b.Loop() {
		t.observe(true)
	}
}
