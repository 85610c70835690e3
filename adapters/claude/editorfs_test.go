package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// callTool sends one tools/call through the MCP server and returns the text
// the model would get and whether it is an error.
func callTool(t *testing.T, e *editorFS, name, args string) (string, bool) {
	t.Helper()
	msg := gjson.Parse(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)
	body := e.mcpResponse(t.Context(), msg)
	r := body["mcp_response"].(map[string]any)["result"].(map[string]any)
	return r["content"].([]map[string]any)[0]["text"].(string), r["isError"].(bool)
}

// TestEditorFSRules checks the CLI's rules as the bridge keeps them: an
// existing file must be read before it is edited or overwritten, an edit of
// a file written or read before works, a file changed in the editor since
// is refused, and the editor's refusal to write is the tool's error.
func TestEditorFSRules(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	c := &fsClient{buffers: map[string]string{filepath.Join(dir, "old.txt"): "one\ntwo\n"}}
	e := newEditorFS(c, "s1", "")
	old := filepath.Join(dir, "old.txt")
	steps := []struct {
		name, tool, args string
		want             string
		failed           bool
		edit             func() // the user's change in the editor before the step
	}{
		{name: "edit unread", tool: "Edit", args: `{"file_path":"` + old + `","old_string":"one","new_string":"1"}`, want: msgNotRead, failed: true},
		{name: "overwrite unread", tool: "Write", args: `{"file_path":"` + old + `","content":"x"}`, want: msgNotRead, failed: true},
		{name: "read", tool: "Read", args: `{"file_path":"` + old + `","offset":2}`, want: "     2\ttwo\n"},
		{name: "edit read", tool: "Edit", args: `{"file_path":"` + old + `","old_string":"one","new_string":"1"}`, want: "updated successfully"},
		{name: "create", tool: "Write", args: `{"file_path":"` + p + `","content":"a a\n"}`, want: "File created successfully"},
		{name: "ambiguous", tool: "Edit", args: `{"file_path":"` + p + `","old_string":"a","new_string":"b"}`, want: "Found 2 matches", failed: true},
		{name: "replace all", tool: "Edit", args: `{"file_path":"` + p + `","old_string":"a","new_string":"b","replace_all":true}`, want: "updated successfully"},
		{name: "not found", tool: "Edit", args: `{"file_path":"` + p + `","old_string":"zzz","new_string":"b"}`, want: "String to replace not found", failed: true},
		{name: "changed in the editor", tool: "Edit", args: `{"file_path":"` + p + `","old_string":"b b","new_string":"c"}`, want: msgModified, failed: true,
			edit: func() { c.buffers[p] += "typed\n" }},
		{name: "relative", tool: "Read", args: `{"file_path":"a.txt"}`, want: "absolute", failed: true},
	}
	for _, s := range steps {
		if s.edit != nil {
			s.edit()
		}
		got, failed := callTool(t, e, s.tool, s.args)
		if failed != s.failed || !strings.Contains(got, s.want) {
			t.Errorf("%s: %q (error %v), want %q (error %v)", s.name, got, failed, s.want, s.failed)
		}
	}
	if got := c.buffers[old]; got != "1\ntwo\n" {
		t.Errorf("old.txt = %q", got)
	}
	if got := c.buffers[p]; got != "b b\ntyped\n" {
		t.Errorf("a.txt = %q: a refused edit was applied", got)
	}
}

// refusingClient is an editor that reads nothing and refuses every write.
type refusingClient struct{ fsClient }

func (c *refusingClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errors.New("the user rejected the change")
}

// TestEditorFSWriteRefused: the editor's error (the user rejected the
// change in its review) is what the model is told, and nothing is recorded
// as written.
func TestEditorFSWriteRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.txt")
	e := newEditorFS(&refusingClient{fsClient{buffers: map[string]string{}}}, "s1", "")
	got, failed := callTool(t, e, "Write", `{"file_path":"`+p+`","content":"x"}`)
	if !failed || !strings.Contains(got, "the user rejected the change") {
		t.Errorf("the model got %q (error %v), want the editor's refusal", got, failed)
	}
	if _, ok := e.seen[p]; ok {
		t.Error("a refused write was recorded as the file's content")
	}
}

// TestEditorFSShownAsBuiltins: the editor sees the server's tools as the
// built-ins (titles, kinds, diffs), and modes decide for them as for the
// built-ins.
func TestEditorFSShownAsBuiltins(t *testing.T) {
	in := gjson.Parse(`{"file_path":"/p/a.go","old_string":"x","new_string":"y"}`)
	for _, name := range []string{"Read", "Write", "Edit"} {
		if got, want := describeTool(editorToolPrefix+name, in, "/p"), describeTool(name, in, "/p"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s shown as %+v, want %+v", name, got, want)
		}
	}
	if builtinTool("mcp__other__Edit") != "mcp__other__Edit" || builtinTool(editorToolPrefix+"Bash") != editorToolPrefix+"Bash" {
		t.Error("a tool of another server, or not a file tool, was taken for a built-in")
	}
	edit := []byte(`{"file_path":"/p/a.go"}`)
	outside := []byte(`{"file_path":"/etc/passwd"}`)
	cases := []struct {
		tool, mode string
		input      []byte
		allow      bool
	}{
		{"mcp__acp__Edit", "default", edit, false},
		{"mcp__acp__Edit", "acceptEdits", edit, true},
		{"mcp__acp__Write", "acceptEdits", edit, true},
		{"mcp__acp__Read", "default", edit, true},
		{"mcp__acp__Read", "default", outside, false},
		{"Edit", "acceptEdits", edit, false}, // the CLI decides for its own tools
		{"mcp__acp__Write", "plan", []byte(`{"file_path":"/home/u/.claude/plans/p.md"}`), true},
		{"mcp__acp__Write", "plan", edit, false},
	}
	for _, c := range cases {
		if got := editorFSDecision(c.tool, c.mode, "/p", nil, "/home/u/.claude", c.input) != nil; got != c.allow {
			t.Errorf("%s in %s on %s: allowed %v, want %v", c.tool, c.mode, c.input, got, c.allow)
		}
	}
}

// TestEditorFSProtocol: initialize, notifications and tools/list answer as
// an MCP server must, and the tools stay loaded for the model.
func TestEditorFSProtocol(t *testing.T) {
	e := newEditorFS(&fsClient{buffers: map[string]string{}}, "s1", "")
	init := e.mcpResponse(t.Context(), gjson.Parse(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if v := gjson.Get(encoded(t, init), "mcp_response.result.protocolVersion").String(); v != "2025-11-25" {
		t.Errorf("initialize answered protocol %q", v)
	}
	note := e.mcpResponse(t.Context(), gjson.Parse(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if got := encoded(t, note); got != `{"mcp_response":{"jsonrpc":"2.0","result":{}}}` {
		t.Errorf("notification acknowledged with %s", got)
	}
	list := gjson.Get(encoded(t, e.mcpResponse(t.Context(), gjson.Parse(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))), "mcp_response.result.tools")
	if n := list.Get("#.name").String(); n != `["Read","Write","Edit"]` {
		t.Errorf("tools %s", n)
	}
	if l := list.Get(`#._meta.anthropic/alwaysLoad`).String(); l != "[true,true,true]" {
		t.Errorf("alwaysLoad %s", l)
	}
	unknown := gjson.Get(encoded(t, e.mcpResponse(t.Context(), gjson.Parse(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`))), "mcp_response.error.code")
	if unknown.Int() != -32601 {
		t.Errorf("unknown method answered %s", unknown.Raw)
	}
}

func encoded(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEditorFSConfigDirLocal: the CLI's own files (plans, memory under its
// config dir) stay on disk and out of the editor, as with the built-ins.
func TestEditorFSConfigDirLocal(t *testing.T) {
	conf := t.TempDir()
	c := &fsClient{buffers: map[string]string{}}
	e := newEditorFS(c, "s1", conf)
	plan := filepath.Join(conf, "plans", "p.md")
	if got, failed := callTool(t, e, "Write", `{"file_path":"`+plan+`","content":"# Plan\n"}`); failed {
		t.Fatalf("write: %s", got)
	}
	if got, failed := callTool(t, e, "Edit", `{"file_path":"`+plan+`","old_string":"Plan","new_string":"Plan v2"}`); failed {
		t.Fatalf("edit: %s", got)
	}
	data, err := os.ReadFile(plan)
	if err != nil || string(data) != "# Plan v2\n" {
		t.Errorf("plan on disk = %q, %v", data, err)
	}
	if len(c.writes) != 0 || len(c.reads) != 0 {
		t.Errorf("the editor was used for the CLI's own file: writes %v, reads %v", c.writes, c.reads)
	}
}

// TestEditorFSStaleBuffer: an editor whose clean buffer has not caught up
// with a change on disk (a command rewrote the file) is not believed: the
// model reads, and edits, the disk's content. A buffer with unsaved edits
// is believed.
func TestEditorFSStaleBuffer(t *testing.T) {
	dir := t.TempDir()
	p, q := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, f := range []string{p, q} {
		if err := os.WriteFile(f, []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &fsClient{buffers: map[string]string{p: "one\n", q: "one, unsaved\n"}}
	e := newEditorFS(c, "s1", "")
	callTool(t, e, "Read", `{"file_path":"`+p+`"}`)
	callTool(t, e, "Read", `{"file_path":"`+q+`"}`)
	for _, f := range []string{p, q} {
		if err := os.WriteFile(f, []byte("two\n"), 0o644); err != nil { // the model's sed, say
			t.Fatal(err)
		}
	}
	if got, _ := callTool(t, e, "Read", `{"file_path":"`+p+`"}`); !strings.Contains(got, "two") {
		t.Errorf("read of a stale clean buffer gave %q, want the disk's two", got)
	}
	if got, failed := callTool(t, e, "Edit", `{"file_path":"`+p+`","old_string":"two","new_string":"three"}`); failed {
		t.Errorf("edit after the stale read: %s", got)
	}
	if got := c.buffers[p]; got != "three\n" {
		t.Errorf("a.txt in the editor = %q, want three", got)
	}
	if got, _ := callTool(t, e, "Read", `{"file_path":"`+q+`"}`); !strings.Contains(got, "one, unsaved") {
		t.Errorf("read of a buffer with unsaved edits gave %q, want the buffer", got)
	}
	// A write the editor has not saved yet (its review is pending) is
	// not taken for a stale buffer.
	if got, failed := callTool(t, e, "Write", `{"file_path":"`+q+`","content":"four\n"}`); failed {
		t.Fatalf("write: %s", got)
	}
	if got, _ := callTool(t, e, "Read", `{"file_path":"`+q+`"}`); !strings.Contains(got, "four") {
		t.Errorf("read after an unsaved editor write gave %q, want four", got)
	}
	if got, _ := callTool(t, e, "Read", `{"file_path":"`+q+`"}`); !strings.Contains(got, "four") {
		t.Errorf("second read after an unsaved editor write gave %q, want four", got)
	}
}

// TestEditorFSReadImage: an image is read from disk and given to the model
// as an image, as the built-in Read gives it; the editor is not asked.
func TestEditorFSReadImage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shot.PNG")
	if err := os.WriteFile(p, []byte("\x89PNG fake"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &fsClient{buffers: map[string]string{}}
	e := newEditorFS(c, "s1", "")
	msg := gjson.Parse(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"` + p + `"}}}`)
	got := gjson.Get(encoded(t, e.mcpResponse(t.Context(), msg)), "mcp_response.result.content.0")
	if got.Get("type").String() != "image" || got.Get("mimeType").String() != "image/png" || got.Get("data").String() != "iVBORyBmYWtl" {
		t.Errorf("image read answered %s", got.Raw)
	}
	if len(c.reads) != 0 {
		t.Errorf("the editor was asked for an image: %v", c.reads)
	}
}

// TestEditorFSResultShownAsBuiltin: a finished read shows the file's text as
// the built-in Read's does (fenced, without line numbers); a write or edit
// keeps the diff of its call (no content).
func TestEditorFSResultShownAsBuiltin(t *testing.T) {
	builtin, _ := resultContent("Read", gjson.Result{}, toolResult{
		block:      gjson.Parse(`{"content":"     1\tx\n     2\ty\n"}`),
		structured: gjson.Parse(`{"type":"text","file":{"content":"x\ny\n"}}`),
	})
	editor, _ := resultContent(editorToolPrefix+"Read", gjson.Result{}, toolResult{
		block: gjson.Parse(`{"content":[{"type":"text","text":"     1\tx\n     2\ty\n"}]}`),
	})
	if !reflect.DeepEqual(editor, builtin) {
		t.Errorf("the editor's read shown as %+v, the built-in's as %+v", editor, builtin)
	}
	edit, _ := resultContent(editorToolPrefix+"Edit", gjson.Result{}, toolResult{
		block: gjson.Parse(`{"content":[{"type":"text","text":"The file /p/a has been updated successfully."}]}`),
	})
	if edit != nil {
		t.Errorf("a finished edit replaced its diff with %+v", edit)
	}
}

// blindClient is an editor that reads no file.
type blindClient struct{ fsClient }

func (c *blindClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errors.New("outside the project")
}

// TestEditorFSEditorCannotRead: a file the editor will not read is read
// from disk, as the CLI's own Read would, and can then be edited.
func TestEditorFSEditorCannotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(p, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &blindClient{fsClient{buffers: map[string]string{}}}
	e := newEditorFS(c, "s1", "")
	if got, failed := callTool(t, e, "Read", `{"file_path":"`+p+`"}`); failed || !strings.Contains(got, "on disk") {
		t.Errorf("read: %q (error %v)", got, failed)
	}
	if got, failed := callTool(t, e, "Edit", `{"file_path":"`+p+`","old_string":"on","new_string":"off"}`); failed {
		t.Errorf("edit: %s", got)
	}
	if got := c.buffers[p]; got != "off disk\n" {
		t.Errorf("the editor was asked to write %q", got)
	}
}
