package main_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestCommandLine checks what the binary prints, where, and its exit code,
// for the ways a user or editor can call it wrongly: stdout must stay empty
// (it belongs to ACP) and the message must say what to do.
func TestCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"version", []string{"--version"}, 0, "acpbridge version"},
		{"help", []string{"--help"}, 0, "replay"},
		{"no command", nil, 0, "COMMAND"},
		{"unknown flag", []string{"--bogus"}, 1, "flag provided but not defined: -bogus"},
		{"unknown command", []string{"fly"}, 3, "No help topic for 'fly'"},
		{"replay without a fixture", []string{"replay"}, 2, "replay takes exactly one FIXTURE"},
		{"replay of a missing fixture", []string{"replay", "no/such.txtar"}, 2, "no/such.txtar"},
		{"bad log level", []string{"--log-level", "loud", "replay", "x"}, 2, "--log-level"},
		{"bad log format", []string{"--log-format", "xml", "replay", "x"}, 2, "--log-format must be json or console"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout must carry only ACP, got %q", stdout.String())
			}
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr does not mention %q:\n%s", tt.inStderr, stderr.String())
			}
		})
	}
}
