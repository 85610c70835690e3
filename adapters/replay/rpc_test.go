package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// TestLauncherTakesJSONRPCRecordings: a Claude Code recording is played
// through Stream, not by the JSON-RPC player; the error names the file.
func TestLauncherTakesJSONRPCRecordings(t *testing.T) {
	path := filepath.Join("..", "..", "fixtures", "claude", "text.txtar")
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Launcher(rec, PlayerOptions{}); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"claude"`) {
		t.Errorf("Launcher(%s) = %v, want an error naming the file and its adapter", path, err)
	}
}
