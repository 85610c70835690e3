package claude

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// fsClient is an editor with files: buffers (what fs/read_text_file
// answers, unsaved changes included) that fs/write_text_file replaces.
type fsClient struct {
	acptest.Client
	mu      sync.Mutex
	buffers map[string]string
	writes  []acp.WriteTextFileRequest
	reads   []string
	asked   []string // tool call ids of permission requests
}

func (c *fsClient) ReadTextFile(_ context.Context, r acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, r.Path)
	if b, ok := c.buffers[r.Path]; ok {
		return acp.ReadTextFileResponse{Content: b}, nil
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, acp.ErrResourceNotFound
	}
	return acp.ReadTextFileResponse{Content: string(data)}, nil
}

func (c *fsClient) WriteTextFile(_ context.Context, r acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, r)
	c.buffers[r.Path] = r.Content
	return acp.WriteTextFileResponse{}, nil
}

// runEditorFS plays the editor_fs scenario on the real CLI with editor file
// access on or off (then the scenario's tools are the CLI's own). The
// editor holds an unsaved buffer of draft.txt, and changes notes.txt in its
// buffer when asked to allow the second edit.
func runEditorFS(t *testing.T, on bool, mode string) (c *fsClient, srv *modelserver.Server, project string) {
	bin, home, tmp, project := realCLIWorld(t)
	data, err := os.ReadFile(filepath.Join(scenarioDir, "e2e", "editor_fs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !on {
		data = []byte(strings.ReplaceAll(string(data), editorToolPrefix, ""))
	}
	sc, err := modelserver.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "draft.txt"), []byte("saved on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(project, "notes.txt")
	c = &fsClient{buffers: map[string]string{filepath.Join(project, "draft.txt"): "typed in the editor, unsaved\n"}}
	c.Caps = acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	c.Permission = func(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		c.mu.Lock()
		c.asked = append(c.asked, string(r.ToolCall.ToolCallID))
		c.mu.Unlock()
		if r.ToolCall.ToolCallID == "toolu_fs_edit2" {
			c.mu.Lock()
			c.buffers[notes] += "a line the user typed\n"
			c.mu.Unlock()
		}
		return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
	}
	srv = modelserver.New(sc.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:           bin,
		PermissionMode: mode,
		EditorFS:       on,
		Env:            modelserver.ClaudeEnv(url, home, tmp),
		Logger:         testLogger(t),
		CancelGrace:    20 * time.Second,
		StopGrace:      2 * time.Second,
	})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	stop, err := s.Prompt(ctx, prompt("Work on the notes."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	return c, srv, project
}

// toolResults is the last user text of each main request after the first:
// what the model got back for each tool use, in order.
func toolResults(srv *modelserver.Server) []string {
	var out []string
	for i, r := range srv.MainRequests() {
		if i > 0 {
			out = append(out, r.LastUserText())
		}
	}
	return out
}

// TestRealCLIEditorFS writes, edits and reads through the editor: nothing
// reaches the disk but through the editor, a later edit of the written file
// works, the unsaved buffer is what the model reads, and a file the user
// changed in the editor after the last read is refused as the CLI refuses
// it.
func TestRealCLIEditorFS(t *testing.T) {
	c, srv, project := runEditorFS(t, true, "")
	notes := filepath.Join(project, "notes.txt")
	if _, err := os.Stat(notes); err == nil {
		t.Error("notes.txt is on disk: the CLI wrote it, not the editor")
	}
	res := toolResults(srv)
	for i, r := range res {
		t.Logf("tool result %d: %s", i, r)
	}
	if len(res) != 4 {
		t.Fatalf("%d tool results, want 4", len(res))
	}
	if !strings.Contains(res[0], "File created successfully") {
		t.Errorf("write: the model got %q", res[0])
	}
	if !strings.Contains(res[1], "updated successfully") {
		t.Errorf("edit after write: the model got %q", res[1])
	}
	if !strings.Contains(res[2], "typed in the editor, unsaved") || strings.Contains(res[2], "saved on disk") {
		t.Errorf("read: the model got %q, want the editor's buffer", res[2])
	}
	if !strings.Contains(res[3], "File has been modified since read") {
		t.Errorf("edit after the user's change: the model got %q", res[3])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if want := []string{"toolu_fs_write", "toolu_fs_edit1", "toolu_fs_edit2"}; !slices.Equal(c.asked, want) {
		t.Errorf("permission asked for %v, want %v (writes and edits, not the read in the project)", c.asked, want)
	}
	if len(c.writes) != 2 || c.writes[0].Path != notes || c.writes[0].Content != "alpha\n" || c.writes[1].Content != "beta\n" {
		t.Errorf("editor writes %+v, want notes.txt alpha then beta", c.writes)
	}
	if got := c.buffers[notes]; got != "beta\na line the user typed\n" {
		t.Errorf("notes.txt in the editor = %q: the stale edit was applied", got)
	}
	tools := strings.Join(srv.MainRequests()[0].ToolNames(), ",")
	for _, n := range []string{"mcp__acp__Read", "mcp__acp__Write", "mcp__acp__Edit"} {
		if !strings.Contains(tools, n) {
			t.Errorf("the model's tools %s lack %s", tools, n)
		}
	}
	for _, n := range strings.Split(tools, ",") {
		if n == "Read" || n == "Write" || n == "Edit" {
			t.Errorf("the model still has the built-in %s", n)
		}
	}
}

// TestRealCLIEditorFSOff is the same scenario with editor file access off:
// the CLI reads and writes the disk itself and the editor is not asked.
func TestRealCLIEditorFSOff(t *testing.T) {
	c, srv, project := runEditorFS(t, false, "")
	got, err := os.ReadFile(filepath.Join(project, "notes.txt"))
	if err != nil || string(got) != "gamma\n" {
		t.Errorf("notes.txt on disk = %q, %v; want the CLI's own writes and edits (gamma)", got, err)
	}
	res := toolResults(srv)
	if len(res) != 4 || !strings.Contains(res[2], "saved on disk") {
		t.Errorf("tool results %q, want the read to see the disk", res)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.writes) != 0 || len(c.reads) != 0 {
		t.Errorf("the editor was used: %d writes, reads %v", len(c.writes), c.reads)
	}
}

// TestRealCLIEditorFSAcceptEdits: in acceptEdits the editor's writes and
// edits run without a permission question, as the CLI's own would.
func TestRealCLIEditorFSAcceptEdits(t *testing.T) {
	c, srv, project := runEditorFS(t, true, "acceptEdits")
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) != 0 {
		t.Errorf("permission asked for %v in acceptEdits", c.asked)
	}
	if got := c.buffers[filepath.Join(project, "notes.txt")]; got != "gamma\n" {
		t.Errorf("notes.txt in the editor = %q, want gamma", got)
	}
	if res := toolResults(srv); len(res) != 4 || !strings.Contains(res[3], "updated successfully") {
		t.Errorf("tool results %q", res)
	}
}

// TestRealCLIEditorFSImage: an image read through the editor's Read tool
// reaches the model as an image.
func TestRealCLIEditorFSImage(t *testing.T) {
	bin, home, tmp, project := realCLIWorld(t)
	sc, err := modelserver.Load(filepath.Join(scenarioDir, "e2e", "editor_fs_image.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A 1x1 PNG.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(filepath.Join(project, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	c := &fsClient{buffers: map[string]string{}}
	c.Caps = acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	a := New(Options{Path: bin, EditorFS: true, Env: modelserver.ClaudeEnv(url, home, tmp), Logger: testLogger(t),
		CancelGrace: 20 * time.Second, StopGrace: 2 * time.Second})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if stop, err := s.Prompt(ctx, prompt("What is in the screenshot?")); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	reqs := srv.MainRequests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, `"type":"image"`) || !strings.Contains(body, "image/png") {
		t.Errorf("the model's request after the read has no PNG image:\n%.2000s", body)
	}
}
