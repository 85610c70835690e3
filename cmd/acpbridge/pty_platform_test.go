package main

import (
	"strings"
	"testing"
)

// TestPTYSupported: the pty command says plainly on Windows that it is
// not supported there, and runs everywhere else a release is built for.
func TestPTYSupported(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		err := ptySupported(goos)
		if unsupported := goos == "windows"; unsupported != (err != nil) {
			t.Errorf("%s: %v", goos, err)
		} else if err != nil && !strings.Contains(err.Error(), "not supported on Windows") {
			t.Errorf("%s: the error %q does not say it is unsupported", goos, err)
		}
	}
}
