//go:build linux

package proc_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
)

// roleEnv makes the test binary play a part instead of running the tests:
// "agent" starts a "tool" grandchild in a session (and process group) of
// its own, prints its pid and waits; "tool" sleeps. With
// "agent-scrubbed", the tool starts with an environment of its own.
const roleEnv = "ACPBRIDGE_PROC_TEST_ROLE"

func TestMain(m *testing.M) {
	switch role := os.Getenv(roleEnv); role {
	case "agent", "agent-scrubbed":
		tool := exec.Command(os.Args[0])
		tool.Env = append(os.Environ(), roleEnv+"=tool")
		if role == "agent-scrubbed" {
			tool.Env = []string{roleEnv + "=tool"}
		}
		tool.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := tool.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(tool.Process.Pid)
		time.Sleep(time.Hour) // the agent's "work"; it is killed long before
		os.Exit(0)
	case "tool":
		time.Sleep(time.Hour) // a long tool command, like `sleep 60`
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The issue: the CLI runs each tool command in a process group of its own,
// and stopping the CLI's group left the command running. Nothing the agent
// started may outlive it, however deep, whether it was killed from outside
// or stopped.
func TestNothingTheAgentStartedOutlivesIt(t *testing.T) {
	tests := []struct {
		name, role string
		end        func(t *testing.T, p proc.Process)
	}{
		{"the agent is killed", "agent", func(t *testing.T, p proc.Process) {
			if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			p.Wait()
		}},
		{"the agent is stopped; the tool dropped the environment", "agent-scrubbed", func(t *testing.T, p proc.Process) {
			p.Stop(t.Context())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, proc.Spec{
				Name: "fake", Path: exe, Env: []string{roleEnv + "=" + tt.role},
				Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel),
				Grace:  200 * time.Millisecond,
			})
			tool, err := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(tool, syscall.SIGKILL) })
			pgid, err := syscall.Getpgid(tool)
			if err != nil || pgid == p.Pid() {
				t.Fatalf("tool %d: group %d, %v; want it alive outside the agent's group %d", tool, pgid, err, p.Pid())
			}
			tt.end(t, p)
			requirePidGone(t, tool)
		})
	}
}

// An orphan adopted by this process (a subreaper) is waited for once it
// dies: it is not left as a zombie.
func TestAdoptedOrphansAreReaped(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, proc.Spec{
		Name: "fake", Path: exe, Env: []string{roleEnv + "=agent"},
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel),
		Grace:  200 * time.Millisecond,
	})
	tool, err := strconv.Atoi(readLine(t, bufio.NewReader(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(tool, syscall.SIGKILL) })
	p.Stop(context.Background())
	if err := syscall.Kill(tool, 0); err != syscall.ESRCH {
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(tool) + "/stat")
		t.Errorf("tool %d is still there (%v): %s", tool, err, stat)
	}
}

// A TUI's daemon does not hold the terminal: the PTY reads EIO as soon as
// the TUI dies, while the daemon still runs. The agent's output must not
// end before the daemon has: a reader takes the end of the output as the
// end of everything the agent started (the Codex TUI's app-server, and the
// notify hook it spawns, outlived the output by a moment).
func TestPTYOutputEndsAfterTheDaemon(t *testing.T) {
	requirePTY(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, proc.Spec{
		Name: "fake", Path: exe, Env: []string{roleEnv + "=agent"},
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel),
		Grace:  200 * time.Millisecond,
	})
	r := bufio.NewReader(p.Stdout())
	tool, err := strconv.Atoi(readLine(t, r))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(tool, syscall.SIGKILL) })
	// Hold the daemon up as a tool that takes a while to die would, so that
	// a reader racing the reaper loses every time.
	if err := syscall.Kill(tool, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("reading to the end: %v", err)
	}
	requirePidGone(t, tool)
}
