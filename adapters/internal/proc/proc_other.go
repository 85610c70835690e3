//go:build windows

package proc

import (
	"io"
	"os"
	"os/exec"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// setProcessGroup is a no-op: Windows has no process groups to signal.
func setProcessGroup(*exec.Cmd) {}

// signalGroup kills the process itself; its children are not reached.
func signalGroup(pid int, _ signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

// groupAlive cannot tell and says no, so no one waits for a group.
func groupAlive(int) bool { return false }

func isEIO(error) bool { return false }

// stdoutPipe makes the agent's stdout pipe: the read end for the bridge and
// the write end for the child.
func stdoutPipe() (io.ReadCloser, *os.File, error) { return os.Pipe() }
