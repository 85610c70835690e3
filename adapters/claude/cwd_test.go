package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// fakeExecutable writes a CLI that exits at once, so that the adapter's
// default launcher has something to start.
func fakeExecutable(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCwdRefusedAtOpen checks that a session cannot be opened in a working
// directory the CLI cannot start in: session/new, load and resume answer
// invalid params naming cwd, rather than the first prompt failing with an
// error that blames the executable.
func TestCwdRefusedAtOpen(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: fakeExecutable(t), Logger: testLogger(t), StopGrace: 50e6, ModelCache: "-"})
	t.Cleanup(func() { _ = a.Close() })
	for _, cwd := range []string{filepath.Join(root, "missing"), file, "relative/dir"} {
		t.Run(filepath.Base(cwd), func(t *testing.T) {
			check := func(what string, s acp.Session, err error) {
				t.Helper()
				if s != nil {
					_ = s.Close()
				}
				var ae *acp.Error
				if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
					t.Fatalf("%s: error %v, want invalid params (-32602)", what, err)
				}
				if !strings.Contains(ae.Message, "cwd") {
					t.Errorf("%s: message %q does not name cwd", what, ae.Message)
				}
				if d, _ := ae.Data.(map[string]any); d["field"] != "cwd" {
					t.Errorf("%s: data %v, want field cwd", what, ae.Data)
				}
			}
			s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: cwd}, &acptest.Client{})
			check("NewSession", s, err)
			s, err = a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: "some-id", Cwd: cwd}, &acptest.Client{})
			check("LoadSession", s, err)
			s, err = a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: "some-id", Cwd: cwd}, &acptest.Client{})
			check("ResumeSession", s, err)
		})
	}
}

// TestStartErrorSaysOnce checks the error of a CLI that cannot be started:
// the launcher's own "starting claude:" is not repeated, and a working
// directory removed after the session opened is named as the cause instead
// of fork/exec's "no such file or directory" under the executable's name.
func TestStartErrorSaysOnce(t *testing.T) {
	exe := fakeExecutable(t)
	tests := []struct {
		name    string
		path    string
		rmDir   bool
		want    string
		wantNot string
	}{
		{"missing executable", filepath.Join(t.TempDir(), "no-claude"), false, "no-claude", "working directory"},
		{"directory removed", exe, true, "working directory", "fork/exec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "project")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			opened := make(chan struct{})
			a := New(Options{
				Path: exe,
				Launch: func(ctx context.Context, spec proc.Spec) (proc.Process, error) {
					<-opened
					spec.Path = tt.path
					return proc.Start(ctx, spec)
				},
				NewSessionID: func() string { return testSessionID },
				Logger:       testLogger(t),
				StopGrace:    50e6,
				ModelWait:    -1, // the launch waits for the test, which waits for NewSession
			})
			// The launcher is proc.Start, as by default, held back until
			// the test has set the scene.
			a.lookPath = true
			t.Cleanup(func() { _ = a.Close() })
			s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: dir}, &acptest.Client{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.rmDir {
				if err := os.Remove(dir); err != nil {
					t.Fatal(err)
				}
			}
			close(opened)
			_, err = s.Prompt(t.Context(), prompt("hi"))
			if err == nil {
				t.Fatal("Prompt succeeded without a CLI")
			}
			msg := err.Error()
			if n := strings.Count(msg, "starting claude"); n > 1 {
				t.Errorf("error %q says %q %d times", msg, "starting claude", n)
			}
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.wantNot) {
				t.Errorf("error %q: want it to mention %q and not %q", msg, tt.want, tt.wantNot)
			}
		})
	}
}
