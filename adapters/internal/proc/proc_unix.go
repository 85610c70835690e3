//go:build !windows

package proc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// setProcessGroup makes the child the leader of a new process group, so
// that signals reach everything it starts. Not for PTY children:
// pty.StartWithSize sets Setsid, and Setpgid on top of it makes fork/exec
// fail with EPERM.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends s to every process in group pgid. A group that is gone
// already is not an error.
func signalGroup(pgid int, s signal) error {
	sig := syscall.SIGTERM
	if s == sigKill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	if s == sigTerm {
		// A stopped process (SIGSTOP, ^Z) only acts on SIGTERM once
		// continued; without this a hung agent waits out every grace
		// period until SIGKILL.
		_ = syscall.Kill(-pgid, syscall.SIGCONT)
	}
	return nil
}

// groupAlive reports whether group pgid has a member that is not a zombie.
// Zombies do not count: killed grandchildren are reparented to init, which
// in some containers never reaps them.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	return linuxGroupAlive(pgid)
}

// linuxGroupAlive scans /proc for a live member of group pgid; it says
// true when /proc cannot be read.
func linuxGroupAlive(pgid int) bool {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	want := []byte(strconv.Itoa(pgid))
	for _, e := range dir {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// "pid (comm) state ppid pgrp ..."; comm may hold anything, so
		// split after its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 || !bytes.Equal(f[2], want) {
			continue
		}
		if state := f[0][0]; state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// isEIO reports the error a PTY master read returns once the child side is
// closed (Linux).
func isEIO(err error) bool { return errors.Is(err, syscall.EIO) }
