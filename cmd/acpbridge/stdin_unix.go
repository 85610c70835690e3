//go:build !windows

package main

import (
	"os"
	"syscall"
)

// stdin returns the process's stdin in non-blocking mode, so that closing it
// at shutdown unblocks a pending read (a blocking fd would keep the reader in
// a read(2) until the editor writes or closes, and SIGTERM could not end the
// bridge promptly). A terminal is left alone: the flag belongs to the open
// file, which the user's shell shares. Falls back to os.Stdin when that is not
// possible.
func stdin() *os.File {
	if isTerminal(os.Stdin) {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}
