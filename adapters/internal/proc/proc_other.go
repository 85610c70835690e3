//go:build windows

package proc

import (
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// setProcessGroup starts the agent in a console process group of its own
// (CREATE_NEW_PROCESS_GROUP), so that CTRL_BREAK can be sent to it alone.
// Its children are held by the Job Object of tree (tree_windows.go).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup asks with CTRL_BREAK, to the agent's console process group
// (it fails when the bridge has no console to share, as under a GUI
// editor; the stop then goes on to the kill), and kills with
// TerminateProcess. Once the agent has exited, tree terminates its Job
// Object: everything it started.
func signalGroup(pid int, s signal) error {
	if s == sigTerm {
		return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid))
	}
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
