//go:build !windows

package e2e

import (
	"encoding/json"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden pty-notify command is the reporter agents' hooks run: it sends
// its arguments and its piped stdin to the socket as one JSON object, and
// prints nothing on stdout (it is this binary, whose stdout is ACP's).
func TestPTYNotifyReports(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(got)
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	cmd := exec.Command(binPath, "pty-notify", sock, "stop", `{"type":"x"}`)
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop"}`)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pty-notify: %v: %s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
	var r struct {
		Args  []string `json:"args"`
		Stdin string   `json:"stdin"`
	}
	if err := json.Unmarshal(<-got, &r); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Args, "|") != `stop|{"type":"x"}` || r.Stdin != `{"hook_event_name":"Stop"}` {
		t.Errorf("report = %+v", r)
	}

	// Without a bridge to report to it fails, saying so on stderr.
	cmd = exec.Command(binPath, "pty-notify", filepath.Join(t.TempDir(), "none"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "reporting to the bridge") {
		t.Errorf("pty-notify to no socket = %v, %q; want an error naming what failed", err, out)
	}
}
