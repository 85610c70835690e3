package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/pty"
)

// `pty --print-profile NAME` prints a built-in profile that reads back as
// that profile: the template of a profile for another agent. It serves
// nothing and needs no command.
func TestPTYPrintProfile(t *testing.T) {
	for _, name := range []string{"codex", "generic", "faketui"} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"acpbridge", "pty", "--print-profile", name}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			got, err := pty.ParseProfile(name+".toml", stdout.Bytes())
			if err != nil {
				t.Fatalf("the printed profile does not parse: %v\n%s", err, stdout.String())
			}
			want, _ := pty.FindProfile(name, "")
			if got.Name != want.Name || got.Idle.String() != want.Idle.String() || len(got.Dialogs) != len(want.Dialogs) {
				t.Errorf("printed %q (idle %s), want the built-in %q (idle %s)", got.Name, got.Idle, want.Name, want.Idle)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"acpbridge", "pty", "--print-profile", "nope"}, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), `no built-in profile "nope" (built-in: `) {
		t.Errorf("--print-profile nope: exit %d, stdout %q, stderr %q; want 2 and the built-in names", code, stdout.String(), stderr.String())
	}
}
