//go:build linux

package e2e

import (
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	sdk "github.com/coder/acp-go-sdk"
)

// TestClaudeE2EToolOutlivesCLI is the test on the real CLI: the
// CLI runs each Bash command in a process group of its own, so stopping
// the CLI's group left a running command behind. Here the CLI is killed
// with SIGKILL while its Bash tool runs `sleep 60`; the sleep must be gone
// once the prompt is answered and the session closed, and nothing of the
// world may survive the bridge.
func TestClaudeE2EToolOutlivesCLI(t *testing.T) {
	t.Parallel()
	ctx, w, b, sid := e2eSession(t, "tool_outlives_cli")
	b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	answered := e2ePromptAsync(ctx, b, sid, "Wait for a minute, please.")

	// The sleep is told apart from other tests' by its HOME, the world's.
	sleep := w.toolProcess("sleep", "60")
	for ; sleep == 0; sleep = w.toolProcess("sleep", "60") {
		select {
		case r := <-answered:
			t.Fatalf("the prompt ended (%+v, %v) before the tool ran", r.res, r.err)
		case <-ctx.Done():
			t.Fatal("the Bash tool's sleep 60 never started")
		case <-time.After(20 * time.Millisecond):
		}
	}
	pids := b.cliPids()
	if len(pids) != 1 {
		t.Fatalf("bridge children %v, want the one CLI", pids)
	}
	// What makes the case: stopping the CLI's group does not reach it.
	cliGroup, _ := syscall.Getpgid(pids[0])
	if pg, _ := syscall.Getpgid(sleep); pg == cliGroup {
		t.Logf("the sleep runs in the CLI's group %d: this CLI version does not isolate tool commands", pg)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-answered:
		if r.err == nil {
			t.Errorf("prompt after the CLI was killed = %+v, want an error", r.res)
		}
	case <-ctx.Done():
		t.Fatal("the prompt was not answered after the CLI died")
	}
	if _, err := b.conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: sid}); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	if bridgeproc.Alive(sleep) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", sleep))
		t.Errorf("the tool's sleep (pid %d: %q) survived its CLI and its session", sleep, cmd)
		syscall.Kill(sleep, syscall.SIGKILL)
	}
	b.stop() // checks that nothing of the world survives the bridge
}

// toolProcess returns a live process running argv with the world's HOME,
// or 0.
func (w *e2eWorld) toolProcess(argv ...string) int {
	for _, pid := range bridgeproc.HomeProcesses(w.home) {
		if slices.Equal(e2eCmdline(pid), argv) {
			return pid
		}
	}
	return 0
}
