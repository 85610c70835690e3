//go:build linux

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	sdk "github.com/coder/acp-go-sdk"
)

// TestE2EEditorFS drives `acpbridge claude` on the real CLI from the Go SDK
// as an editor that advertises fs: Claude's writes and edits reach the
// editor (fs/write_text_file) and not the disk, its read sees the editor's
// unsaved buffer, and the tool calls show the built-ins' titles and diffs.
// With --no-editor-fs (or ACPBRIDGE_CLAUDE_EDITOR_FS=false) the editor is
// never asked and the model gets the CLI's own tools.
func TestE2EEditorFS(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		env  string
		on   bool
	}{
		{name: "on", on: true},
		{name: "flag off", args: []string{"--no-editor-fs"}},
		{name: "env off", env: "ACPBRIDGE_CLAUDE_EDITOR_FS=false"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newE2EWorld(t, "editor_fs")
			draft, notes := filepath.Join(w.proj, "draft.txt"), filepath.Join(w.proj, "notes.txt")
			if err := os.WriteFile(draft, []byte("saved on disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w.files = map[string]string{draft: "typed in the editor, unsaved\n"}
			w.bridgeArgs = tt.args
			if tt.env != "" {
				w.env = append(w.env, tt.env)
			}
			b := w.start()
			b.client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			sid := b.newSession(ctx).SessionId
			b.mustPrompt(ctx, sid, "Work on the notes.", sdk.StopReasonEndTurn)

			tools := w.srv.MainRequests()[0].ToolNames()
			if got := slices.Contains(tools, "mcp__acp__Write"); got != tt.on {
				t.Errorf("the model has mcp__acp__Write: %v, want %v (tools %v)", got, tt.on, tools)
			}
			if got := slices.Contains(tools, "Write"); got == tt.on {
				t.Errorf("the model has the CLI's Write: %v, want %v", got, !tt.on)
			}
			writes := b.client.Writes()
			if !tt.on {
				if len(writes) != 0 {
					t.Errorf("the editor got %d writes with editor fs off", len(writes))
				}
				return
			}
			if _, err := os.Stat(notes); err == nil {
				t.Error("notes.txt is on disk: only the editor may write it")
			}
			var contents []string
			for _, wr := range writes {
				if wr.Path != notes {
					t.Errorf("the editor was asked to write %s", wr.Path)
				}
				contents = append(contents, wr.Content)
			}
			if want := []string{"alpha\n", "beta\n", "gamma\n"}; !slices.Equal(contents, want) {
				t.Errorf("editor writes %q, want %q", contents, want)
			}
			reqs := w.srv.MainRequests()
			if got := reqs[3].LastUserText(); !strings.Contains(got, "typed in the editor, unsaved") {
				t.Errorf("the model read %q, want the editor's unsaved buffer", got)
			}
			us := b.client.Updates()
			write := e2eFindTool(us, "toolu_fs_write")
			if write == nil || write.kind != sdk.ToolKindEdit || write.title != "Write notes.txt" || write.status() != sdk.ToolCallStatusCompleted {
				t.Fatalf("the write's tool call: %+v", write)
			}
			if d := e2eDiffs(write.content); len(d) != 1 || d[0].path != notes || d[0].new != "alpha\n" {
				t.Errorf("the write's diff: %+v", d)
			}
			edit := e2eFindTool(us, "toolu_fs_edit1")
			if d := e2eDiffs(edit.content); edit == nil || len(d) != 1 || d[0].old != "alpha" || d[0].new != "beta" {
				t.Errorf("the edit's diff: %+v", d)
			}
		})
	}
}
