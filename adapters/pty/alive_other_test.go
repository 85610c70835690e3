//go:build windows

package pty

import "os"

// processAlive reports whether pid exists: on Windows, whether a handle
// to it can be opened.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
