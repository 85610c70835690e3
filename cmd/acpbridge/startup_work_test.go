//go:build linux

package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/pinned"
)

// startupWork bounds the work the shipped binary does to start, in two
// counts that, unlike a time, stay the same on a loaded machine. The
// timing figure itself is BenchmarkInitialize's, in make bench.
//
// maxInstructions bounds the instructions executed, counted by valgrind (a
// count varies by a few per cent with goroutine scheduling). The bounds are
// about twice today's counts: go-runewidth v0.0.27 building its width
// tables at package init made --version execute 414 million instructions
// where it executes 11 million with tables built on first use; the help
// text parsing every built-in PTY profile (TOML and regular expressions)
// to list their names made it 16 million, where it executes 3 million.
//
// maxFaults bounds the minor page faults of the process, the median of
// startupRuns runs. On a VM where a fault costs about 14 µs they are most
// of the start-up time, and each page of heap or code touched for the first
// time is one.
var startupWork = []struct {
	name            string
	args            []string
	stdin           string
	maxInstructions int64
	maxFaults       int64
}{
	// Start, print the version, exit: package init and flag parsing.
	{"version", []string{"--version"}, "", 6_000_000, 650},
	// Start, answer initialize for a recorded session, exit at stdin EOF.
	{"initialize", []string{"--log-level", "warn", "replay", fixture("claude/demo.txtar")},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n", 18_000_000, 1000},
}

// startupRuns is how many times each start is counted.
const startupRuns = 7

var collected = regexp.MustCompile(`Collected : (\d+)`)

func TestStartupWork(t *testing.T) {
	t.Parallel()
	bin, err := bridgeproc.BuildShipped(t.TempDir(), ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("faults", func(t *testing.T) { startupFaults(t, bin) })
	t.Run("instructions", func(t *testing.T) { startupInstructions(t, bin) })
}

func startupFaults(t *testing.T, bin string) {
	for _, tt := range startupWork {
		t.Run(tt.name, func(t *testing.T) {
			counts := make([]int64, startupRuns)
			for i := range counts {
				cmd := exec.Command(bin, tt.args...)
				cmd.Stdin = strings.NewReader(tt.stdin)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil || len(out) == 0 {
					t.Fatalf("acpbridge %v: %v (stdout %q)\n%s", tt.args, err, out, stderr.Bytes())
				}
				counts[i] = cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt
			}
			slices.Sort(counts)
			n := counts[len(counts)/2]
			t.Logf("%s: %d page faults (median of %v; bound %d)", tt.name, n, counts, tt.maxFaults)
			if n > tt.maxFaults {
				t.Errorf("%s made %d page faults, over the bound of %d: see what runs at start with GODEBUG=inittrace=1, "+
					"and where it faults with perf record -e page-faults -g on a build without -s -w", tt.name, n, tt.maxFaults)
			}
		})
	}
}

func startupInstructions(t *testing.T, bin string) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		pinned.Missing(t, fmt.Errorf("valgrind counts the instructions (apt-get install valgrind): %w", err))
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
			t.Logf("%s: %d instructions (bound %d)", tt.name, n, tt.maxInstructions)
			if n > tt.maxInstructions {
				t.Errorf("%s executed %d instructions, over the bound of %d: see what runs at start with GODEBUG=inittrace=1", tt.name, n, tt.maxInstructions)
			}
		})
	}
}
