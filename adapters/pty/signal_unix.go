//go:build !windows

package pty

import (
	"io"
	"os"
	"syscall"
	"time"
)

// readBounded reads f to its end, or what came within d. A deadline needs
// a non-blocking descriptor: stdin is inherited blocking.
func readBounded(f *os.File, d time.Duration) string {
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return ""
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	_ = nf.SetReadDeadline(time.Now().Add(d))
	b, _ := io.ReadAll(io.LimitReader(nf, maxReport))
	return string(b)
}
