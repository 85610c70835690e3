//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestInteropTypeScriptSDKEditorFS has the official TypeScript SDK advertise
// fs to `acpbridge serve claude` on the real CLI: the model's write and
// edits reach the client's fs/write_text_file (and not the disk), its read
// gets the client's unsaved buffer.
func TestInteropTypeScriptSDKEditorFS(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "editor_fs")
	draft, notes := filepath.Join(w.proj, "draft.txt"), filepath.Join(w.proj, "notes.txt")
	if err := os.WriteFile(draft, []byte("saved on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	buffers, err := json.Marshal(map[string]string{draft: "typed in the editor, unsaved\n"})
	if err != nil {
		t.Fatal(err)
	}
	out := runInteropScript(t, w, "fs.mjs", "Work on the notes.", string(buffers))
	var got struct {
		Reads      []string
		Writes     []struct{ Path, Content string }
		ToolStatus map[string]string
		StopReason string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("fs.mjs printed %q: %v", out, err)
	}
	var contents []string
	for _, wr := range got.Writes {
		if wr.Path != notes {
			t.Errorf("the client was asked to write %s", wr.Path)
		}
		contents = append(contents, wr.Content)
	}
	if want := []string{"alpha\n", "beta\n", "gamma\n"}; !slices.Equal(contents, want) {
		t.Errorf("client writes %q, want %q", contents, want)
	}
	if !slices.Contains(got.Reads, draft) {
		t.Errorf("the client was not asked to read draft.txt: %v", got.Reads)
	}
	if _, err := os.Stat(notes); err == nil {
		t.Error("notes.txt is on disk: only the client may write it")
	}
	if got.StopReason != "end_turn" || got.ToolStatus["toolu_fs_write"] != "completed" || got.ToolStatus["toolu_fs_read"] != "completed" {
		t.Errorf("stop reason %q, tool statuses %v", got.StopReason, got.ToolStatus)
	}
	reqs := w.mainRequestsText()
	if read := reqs[3]; !strings.Contains(read, "typed in the editor, unsaved") {
		t.Errorf("the model's request after the read lacks the client's buffer:\n%s", bridgeproc.Tail(read, 800))
	}
}
