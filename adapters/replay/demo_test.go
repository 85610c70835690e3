package replay_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/replay"
)

// TestDemoIsTheFixture: the built-in demo is fixtures/claude/demo.txtar,
// which the golden suite checks; a re-recorded fixture must be copied.
func TestDemoIsTheFixture(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "claude", "demo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	built, err := os.ReadFile("demo.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(built, fixture) {
		t.Error("adapters/replay/demo.txtar is not fixtures/claude/demo.txtar: cp fixtures/claude/demo.txtar adapters/replay/")
	}
	rec, err := replay.Demo()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Meta["adapter"] != "claude" || rec.Steps == 0 || len(rec.Editor) == 0 {
		t.Errorf("the demo opens as meta %v with %d steps and %d editor messages", rec.Meta, rec.Steps, len(rec.Editor))
	}
}
