//go:build linux

package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/pinned"
)

// startupWork bounds the instructions the shipped binary executes, counted
// by valgrind: unlike a time, the count is the same on a loaded machine (it
// varies by a few per cent with goroutine scheduling). The timing figure
// itself is BenchmarkInitialize's, in make bench. The bounds are about
// twice today's counts: go-runewidth v0.0.27 building its width tables at
// package init made --version execute 414 million instructions where it
// executes 11 million with tables built on first use; the help text
// parsing every built-in PTY profile (TOML and regular expressions) to
// list their names made it 16 million, where it executes 3 million.
var startupWork = []struct {
	name  string
	args  []string
	stdin string
	max   int64
}{
	// Start, print the version, exit: package init and flag parsing.
	{"version", []string{"--version"}, "", 6_000_000},
	// Start, answer initialize for a recorded session, exit at stdin EOF.
	{"initialize", []string{"--log-level", "warn", "replay", fixture("claude/demo.txtar")},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n", 18_000_000},
}

var collected = regexp.MustCompile(`Collected : (\d+)`)

func TestStartupWork(t *testing.T) {
	t.Parallel()
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		pinned.Missing(t, fmt.Errorf("valgrind counts the instructions (apt-get install valgrind): %w", err))
	}
	bin, err := bridgeproc.BuildShipped(t.TempDir(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range startupWork {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(vg, append([]string{"--tool=callgrind", "--callgrind-out-file=/dev/null", bin}, tt.args...)...)
			// Valgrind follows neither the Go runtime's preemption signals nor
			// RDTSCP, which the runtime's monitor thread may use.
			cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off")
			cmd.Stdin = bytes.NewBufferString(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			m := collected.FindSubmatch(stderr.Bytes())
			var exit *exec.ExitError
			if (err != nil && !errors.As(err, &exit)) || m == nil {
				t.Fatalf("valgrind %v: %v\n%s", tt.args, err, stderr.Bytes())
			}
			if len(out) == 0 {
				t.Fatalf("the bridge printed nothing under valgrind:\n%s", stderr.Bytes())
			}
			n, _ := strconv.ParseInt(string(m[1]), 10, 64)
			t.Logf("%s: %d instructions (bound %d)", tt.name, n, tt.max)
			if n > tt.max {
				t.Errorf("%s executed %d instructions, over the bound of %d: see what runs at start with GODEBUG=inittrace=1", tt.name, n, tt.max)
			}
		})
	}
}
