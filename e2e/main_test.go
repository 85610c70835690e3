package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// binPath is the acpbridge binary built once for the end-to-end tests;
// fakeAgentPath is cmd/dev/fakeagent, a stand-in for a wrapped CLI that plays a
// recorded session as a real child process.
// acpAgentPath is cmd/dev/acpagent, a scripted agent that speaks ACP itself;
// relayAgentPath is cmd/dev/relayagent, a scripted CLI that speaks stream-JSON
// in a dialect of its own; initFloorPath is cmd/dev/initfloor, the least a Go
// ACP agent does to start (BenchmarkInitialize's baseline).
var binPath, fakeAgentPath, acpAgentPath, relayAgentPath, initFloorPath string

func TestMain(m *testing.M) {
	paths, remove, err := bridgeproc.Build("../cmd/acpbridge", "../cmd/dev/fakeagent", "../cmd/dev/acpagent", "../cmd/dev/relayagent", "../cmd/dev/initfloor")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath, fakeAgentPath, acpAgentPath, relayAgentPath, initFloorPath = paths[0], paths[1], paths[2], paths[3], paths[4]
	// The binaries the tests run cache what they learn of the installed
	// CLIs (their versions) in the user's cache folder: here a folder of
	// the test run's own, so that no test reads another run's answers or
	// leaves files behind.
	cache, err := os.MkdirTemp("", "acpbridge-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	remove()
	os.RemoveAll(cache)
	os.Exit(code)
}

// fixture returns the path of a bundled fixture.
func fixture(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "fixtures", name)
}

// startBridge runs acpbridge with args on pipes. Every line it writes to
// stdout is checked: JSON-RPC, and valid against the ACP schema (answers
// against the method they answer). The test's cleanup closes its stdin
// and waits for it to exit.
func startBridge(t *testing.T, args ...string) *bridgeproc.Proc {
	t.Helper()
	return bridgeproc.Start(t, binPath, bridgeproc.Options{Args: args})
}
