//go:build windows

package proc

import (
	"context"
	"testing"
	"time"
)

// TestJobHoldsTheTree: on Windows an agent and what it starts share a Job
// Object, and stopping the agent ends them all. (CI checks that this
// compiles; it runs only on a Windows machine.)
func TestJobHoldsTheTree(t *testing.T) {
	p, err := Start(t.Context(), Spec{Path: "cmd.exe", Args: []string{"/c", "ping -n 60 127.0.0.1 >NUL"}, Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.(*osProc).tree
	if tr.job == 0 {
		t.Fatal("the agent runs in no job")
	}
	deadline := time.Now().Add(10 * time.Second)
	for tr.active() < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := tr.active(); n < 2 {
		t.Fatalf("%d processes in the job, want cmd.exe and the ping it started", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	p.Stop(ctx) //nolint:errcheck // killed: an exit error is expected
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v", d)
	}
}
