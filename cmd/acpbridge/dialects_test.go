package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/claude"
)

// TestStreamJSONPrintDialect: --print-dialect writes the built-in dialect
// to stdout as a dialect file that --dialect reads back.
func TestStreamJSONPrintDialect(t *testing.T) {
	for _, name := range claude.BuiltinDialects() {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"acpbridge", "stream-json", "--print-dialect", name}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		file := filepath.Join(t.TempDir(), name+".toml")
		if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := claude.LoadDialect(file)
		if err != nil || d.Name != name {
			t.Errorf("%s: reading the printed template back: %v, %+v", name, err, d)
		}
	}
}

// TestStreamJSONBadDialect: a bad dialect file is a usage error that names
// the file and the line, before anything starts.
func TestStreamJSONBadDialect(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.toml")
	data := "name = \"bad\"\nargs = [\"--x\"]\n\n[tools.shell]\nkind = \"shell\"\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"acpbridge", "stream-json", "--dialect", file, "--", "true"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), file+":4: kind \"shell\"") || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %q: want 2 and the file:line of the bad kind", code, stderr.String(), stdout.String())
	}
}
