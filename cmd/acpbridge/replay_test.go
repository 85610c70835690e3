package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/adapters/pty"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// TestReplayKinds: each kind of recording is played through its own
// adapter, and a kind the replay does not know is named in the error with
// the kinds it knows.
func TestReplayKinds(t *testing.T) {
	odd := filepath.Join(t.TempDir(), "odd.txtar")
	if err := os.WriteFile(odd, []byte("-- meta --\nadapter: telepathy\n-- agent --\n> {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "fixtures")
	tests := []struct {
		name, fixture string
		ok            func(any) bool
	}{
		{"claude", filepath.Join(dir, "claude", "text.txtar"), func(a any) bool { _, ok := a.(*replay.Adapter); return ok }},
		{"acp", filepath.Join(dir, "gemini", "text.txtar"), func(a any) bool { _, ok := a.(*native.Adapter); return ok }},
		{"codex", filepath.Join(dir, "codex", "text.txtar"), func(a any) bool { _, ok := a.(*codex.Adapter); return ok }},
		{"stream-json", filepath.Join(dir, "qwen", "stream_json_text.txtar"), func(a any) bool {
			r, ok := a.(*replay.Adapter)
			return ok && strings.HasPrefix(r.Info().Title, "Qwen Code (replay of")
		}},
		{"pty", filepath.Join(dir, "pty", "text.txtar"), func(a any) bool { _, ok := a.(*pty.Adapter); return ok }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := recording.Open(tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			a, err := replayAdapter(&globals{}, rec, 0)
			if err != nil || !tt.ok(a) {
				t.Fatalf("replayAdapter(%s) = %T, %v", tt.fixture, a, err)
			}
			if err := a.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	rec, err := recording.Open(odd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replayAdapter(&globals{}, rec, 0); err == nil || !strings.Contains(err.Error(), `"telepathy" (want claude, acp, codex, stream-json or pty)`) {
		t.Errorf("replayAdapter(adapter: telepathy) = %v, want an error naming the known kinds", err)
	}
}
