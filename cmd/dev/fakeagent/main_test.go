package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		path    string
		session string
		pace    time.Duration
		wantErr bool
	}{
		{name: "fixture only", args: []string{"a.txtar"}, path: "a.txtar"},
		{
			name: "under a CLI command line",
			args: []string{"--output-format", "stream-json", "--session-id", "S1", "--verbose", "x/b.txtar", "c.txtar"},
			path: "x/b.txtar", session: "S1",
		},
		{name: "flags with =", args: []string{"--pace=10ms", "-session-id=S2", "a.txtar"}, path: "a.txtar", session: "S2", pace: 10 * time.Millisecond},
		{name: "env", args: []string{"-p"}, env: map[string]string{"ACPBRIDGE_FAKEAGENT": "e.txtar"}, path: "e.txtar"},
		{name: "argument beats env", args: []string{"a.txtar"}, env: map[string]string{"ACPBRIDGE_FAKEAGENT": "e.txtar"}, path: "a.txtar"},
		{name: "none", args: []string{"--verbose"}, wantErr: true},
		{name: "missing value", args: []string{"a.txtar", "--session-id"}, wantErr: true},
		{name: "bad pace", args: []string{"a.txtar", "--pace", "soon"}, wantErr: true},
		{name: "help", args: []string{"--help"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, opts, err := parseArgs(tt.args, env(tt.env))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (path != tt.path || opts.SessionID != tt.session || opts.Pace != tt.pace) {
				t.Errorf("got %q %q %v, want %q %q %v", path, opts.SessionID, opts.Pace, tt.path, tt.session, tt.pace)
			}
		})
	}
}

func TestRun(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "f.txtar")
	data := "-- meta --\nsession: rec\n-- agent --\n< {\"type\":\"user\"}\n> {\"type\":\"result\",\"session_id\":\"rec\"}\n"
	if err := os.WriteFile(fixture, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	stdin := strings.NewReader(`{"type":"user","message":{"role":"user","content":"hi"}}` + "\n")
	code := run(context.Background(), []string{"--session-id", "live", fixture}, func(string) string { return "" }, stdin, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, &stderr)
	}
	if got, want := stdout.String(), `{"type":"result","session_id":"live"}`+"\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if code := run(context.Background(), nil, func(string) string { return "" }, stdin, &stdout, &stderr); code != 2 {
		t.Errorf("no fixture: exit %d, want 2", code)
	}
	if code := run(context.Background(), []string{"missing.txtar"}, func(string) string { return "" }, stdin, &stdout, &stderr); code != 1 {
		t.Errorf("missing fixture: exit %d, want 1", code)
	}
}
