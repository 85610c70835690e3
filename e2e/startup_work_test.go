//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

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
// startupRuns runs on two CPUs (startOnCPUs). On a VM where a fault costs
// about 14 µs they are most of the start-up time: each page of heap, stack
// or code touched for the first time is one. Over 20 runs --version made
// 425-495 (median 460) and initialize 556-713 (median 685), the same with
// the CPUs busy; the bounds are about 1.3 times those medians. The
// go-runewidth v0.0.27 regression above made them 1,006 and 1,247. The
// counts grow with the CPUs the runtime may use (about 60 more for
// --version from one CPU to two: a P, its threads and their caches), so
// the child gets two of them.
var startupWork = []struct {
	name            string
	args            []string
	stdin           string
	maxInstructions int64
	maxFaults       int64
}{
	// Start, print the version, exit: package init and flag parsing.
	{"version", []string{"--version"}, "", 6_000_000, 610},
	// Start, answer initialize for a recorded session, exit at stdin EOF.
	{"initialize", []string{"--log-level", "warn", "replay", fixture("claude/demo.txtar")},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n", 18_000_000, 910},
}

// startupRuns is how many times each start is counted.
const startupRuns = 7

var collected = regexp.MustCompile(`Collected : (\d+)`)

func TestStartupWork(t *testing.T) {
	t.Parallel()
	bin, err := bridgeproc.BuildShipped(t.TempDir(), "../cmd/acpbridge")
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
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := startOnCPUs(cmd, 2)
				if err == nil {
					err = cmd.Wait()
				}
				if err != nil || stdout.Len() == 0 {
					t.Fatalf("acpbridge %v: %v (stdout %q)\n%s", tt.args, err, stdout.Bytes(), stderr.Bytes())
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

// startOnCPUs starts cmd allowed on at most n of the CPUs this process may
// use: the child inherits the CPU affinity of the thread that forks it,
// here the calling goroutine's, locked to its thread for the while.
func startOnCPUs(cmd *exec.Cmd, n int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return err
	}
	for cpu := 0; cpu < len(was)*64 && set.Count() < n; cpu++ {
		if was.IsSet(cpu) {
			set.Set(cpu)
		}
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return err
	}
	defer unix.SchedSetaffinity(0, &was)
	return cmd.Start()
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
