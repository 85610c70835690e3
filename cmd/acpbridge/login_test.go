//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeLoginCLI writes a shell script standing in for an agent CLI: it
// appends its arguments to a log, and its login (any arguments but the
// status ones) writes a marker that its status command then reports,
// unless the login is told to fail or not to take.
func fakeLoginCLI(t *testing.T, status string) (exe, log string) {
	t.Helper()
	dir := t.TempDir()
	exe, log = filepath.Join(dir, "cli"), filepath.Join(dir, "argv")
	marker := filepath.Join(dir, "logged-in")
	script := `#!/bin/sh
echo "$*" >> '` + log + `'
if [ "$*" = '` + status + `' ]; then test -e '` + marker + `'; exit $?; fi
case "$FAKE_LOGIN" in
fail) exit 3 ;;
nothing) exit 0 ;;
esac
touch '` + marker + `'
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, log
}

// TestLogin runs an agent's login the ways an editor's terminal auth
// method can start it: the configured command with the method's args
// appended and its env merged (the schema), whatever that command ends
// with, and the method's args alone with its env (the ACP registry's
// reading), and `acpbridge login` by hand. Each must run the CLI's own
// login with the configured executable and exit 0 only when the login took.
func TestLogin(t *testing.T) {
	claude, claudeLog := fakeLoginCLI(t, "auth status")
	codex, codexLog := fakeLoginCLI(t, "login status")
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		log      string
		wantArgv string
		stderr   string
	}{
		{"appended to the configured command", []string{"claude", "--claude-path", claude, "login", "claude"},
			map[string]string{loginEnv: "claude"}, 0, claudeLog, "auth login\nauth status\n", "Claude Code is logged in"},
		{"appended after -- CLI-ARGS", []string{"--log-level", "warn", "claude", "--claude-path", claude, "--", "--model", "opus", "login", "claude"},
			map[string]string{loginEnv: "claude"}, 0, claudeLog, "auth login\nauth status\n", "Claude Code is logged in"},
		{"env alone", []string{"codex", "--codex-path", codex},
			map[string]string{loginEnv: "codex"}, 0, codexLog, "login\nlogin status\n", "Codex is logged in"},
		{"args in place of the command", []string{"login", "codex"},
			map[string]string{loginEnv: "codex", "ACPBRIDGE_CODEX_PATH": codex}, 0, codexLog, "login\nlogin status\n", "Codex is logged in"},
		{"by hand with a path", []string{"login", "--path", codex, "codex"},
			nil, 0, codexLog, "login\nlogin status\n", "Codex is logged in"},
		{"a login that fails", []string{"claude", "--claude-path", claude},
			map[string]string{loginEnv: "claude", "FAKE_LOGIN": "fail"}, 1, claudeLog, "auth login\n", "Claude Code's login did not finish"},
		{"a login that did not take", []string{"claude", "--claude-path", claude},
			map[string]string{loginEnv: "claude", "FAKE_LOGIN": "nothing"}, 1, claudeLog, "auth login\nauth status\n", "still not logged in"},
		{"an agent without a login", []string{"login", "pty"}, nil, 2, "", "", "no login for \"pty\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(loginEnv, "")
			t.Setenv("FAKE_LOGIN", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			for _, l := range []string{claudeLog, codexLog} {
				os.Remove(l)
				os.Remove(filepath.Join(filepath.Dir(l), "logged-in"))
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), append([]string{"acpbridge"}, tt.args...), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.stderr)
			}
			if tt.log != "" {
				argv, _ := os.ReadFile(tt.log)
				if string(argv) != tt.wantArgv {
					t.Errorf("the CLI was run with %q, want %q", argv, tt.wantArgv)
				}
			}
		})
	}
}

// TestTerminalLogins: every agent with a login gets a terminal method
// whose env names it and whose args are the login command, and the
// not-logged-in messages point at them.
func TestTerminalLogins(t *testing.T) {
	names := loginNames()
	if strings.Join(names, ",") != "claude,codex,gemini,qwen,opencode,copilot" {
		t.Errorf("agents with a login: %v", names)
	}
	for _, name := range names {
		d, _ := loginEntry(name)
		m := d.terminalLogin()
		if m.Env[loginEnv] != name || strings.Join(m.Args, " ") != "login "+name {
			t.Errorf("%s: method %+v does not start its login", name, m)
		}
		if !strings.Contains(m.Name, d.title) || m.Description == nil {
			t.Errorf("%s: method %+v does not say what it logs in", name, m)
		}
		meta, _ := m.Meta["terminal-auth"].(map[string]any)
		if cmd, _ := meta["command"].(string); !filepath.IsAbs(cmd) || !reflect.DeepEqual(meta["args"], m.Args) {
			t.Errorf("%s: _meta terminal-auth %v is not this binary with the method's args", name, meta)
		}
	}
}
