//go:build !windows

package pty

import "syscall"

// processAlive reports whether pid exists (a zombie counts as gone only
// once reaped).
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
