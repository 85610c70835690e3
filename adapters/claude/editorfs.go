package claude

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Editor file access (Options.EditorFS). When the editor advertises both
// fs.readTextFile and fs.writeTextFile, the session serves the CLI an
// in-process MCP server named "acp" over the control protocol (an "sdk"
// server in --mcp-config, announced in initialize; the CLI sends its MCP
// JSON-RPC as mcp_message control requests) with Read, Write and Edit tools,
// and launches the CLI with its built-in Read, Write and Edit disallowed.
// The model then calls mcp__acp__Read/Write/Edit, and the bridge performs
// them through fs/read_text_file and fs/write_text_file: the editor shows
// the write for review and reads see its unsaved buffers.
//
// Intercepting the built-in tools instead (denying them in can_use_tool, or
// in a PreToolUse hook, and doing the work through the editor) was rejected:
// the CLI then records the call as refused, so its own read-state is never
// updated and the next Edit of the file fails with "File has not been read
// yet". With the MCP tools the bridge owns the read-state and reproduces
// the CLI's rules with the CLI's own messages:
//   - a file that exists must be Read before it is written or edited;
//   - a file whose content (as the editor sees it) changed since it was last
//     read or written is refused with "File has been modified since read";
//   - a Write or Edit records the new content, so a later Edit works.
//
// The tools are shown to the editor as the built-ins are (describeTool
// strips the server's prefix): same titles, kinds, locations and diffs.
// The CLI's permission rules do not cover MCP tools, so the session decides
// what the CLI's modes would: reads inside the session's directories, the
// CLI's own files (plans, memory) and, in acceptEdits, edits are allowed
// without asking; the rest is asked. The CLI's own files and images are
// read and written on disk, not through the editor. A clean editor buffer
// that has not caught up with a change on disk is not believed (fresh).
//
// The tools carry "anthropic/alwaysLoad": without it the CLI defers MCP
// tools behind its ToolSearch tool, and the model would first have to look
// up how to read a file.

// editorFSServer is the name of the in-process MCP server.
const editorFSServer = "acp"

// editorToolPrefix is how the CLI names the server's tools.
const editorToolPrefix = "mcp__" + editorFSServer + "__"

// Messages the model gets, worded as the CLI's own tools word them.
const (
	msgNotRead  = "File has not been read yet. Read it first before writing to it."
	msgModified = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// builtinTool maps a tool of the editor's MCP server to the built-in it
// stands in for ("mcp__acp__Edit" → "Edit"); other names are returned as is.
func builtinTool(name string) string {
	if b, ok := strings.CutPrefix(name, editorToolPrefix); ok {
		switch b {
		case "Read", "Write", "Edit":
			return b
		}
	}
	return name
}

// editorFSFor reports whether a session routes file tools through the
// editor: the option is on and the editor can both read and write.
func editorFSFor(on bool, caps acp.ClientCapabilities) bool {
	return on && caps.Fs.ReadTextFile && caps.Fs.WriteTextFile
}

// editorFS is a session's MCP server: the tools and the read-state.
type editorFS struct {
	client acp.Client
	id     acp.SessionID
	// local is the CLI's config dir: its plans and memory are read and
	// written on disk, as the CLI would, not shown to the editor.
	local string

	mu    sync.Mutex
	seen  map[string]string // absolute path → content at the last read or write
	looks map[string]look   // absolute path → the editor's last answer
}

func newEditorFS(c acp.Client, id acp.SessionID, local string) *editorFS {
	return &editorFS{client: c, id: id, local: local, seen: map[string]string{}, looks: map[string]look{}}
}

// configDir is the CLI's config dir for env, or "" when unknown.
func configDir(env []string) string {
	return newStore(env).ConfigDir()
}

func (e *editorFS) isLocal(path string) bool {
	return e.local != "" && inside(path, e.local, nil)
}

// mcpResponse answers one JSON-RPC message of the CLI's MCP client; the
// result is the control response's body ({"mcp_response": ...}).
func (e *editorFS) mcpResponse(ctx context.Context, msg gjson.Result) map[string]any {
	id := msg.Get("id")
	if !id.Exists() { // a notification: acknowledged, nothing to do
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}}}
	}
	var result any
	switch msg.Get("method").String() {
	case "initialize":
		result = map[string]any{
			"protocolVersion": orDefault(msg.Get("params.protocolVersion").String(), "2025-06-18"),
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": editorFSServer, "version": "1"},
		}
	case "tools/list":
		result = map[string]any{"tools": editorTools()}
	case "tools/call":
		name, args := msg.Get("params.name").String(), msg.Get("params.arguments")
		if img := readImage(name, args); img != nil {
			result = img
			break
		}
		text, failed := e.call(ctx, name, args)
		result = map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": failed}
	case "ping":
		result = map[string]any{}
	default:
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id.Raw),
			"error": map[string]any{"code": -32601, "message": "method not found: " + msg.Get("method").String()}}}
	}
	return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id.Raw), "result": result}}
}

// call runs one tool; the text is what the model sees.
func (e *editorFS) call(ctx context.Context, name string, args gjson.Result) (text string, failed bool) {
	path := args.Get("file_path").String()
	if !filepath.IsAbs(path) {
		return "file_path must be an absolute path, not " + path, true
	}
	path = filepath.Clean(path)
	var err error
	switch name {
	case "Read":
		text, err = e.read(ctx, path, args.Get("offset").Int(), args.Get("limit").Int())
	case "Write":
		text, err = e.write(ctx, path, args.Get("content").String())
	case "Edit":
		text, err = e.edit(ctx, path, args.Get("old_string").String(), args.Get("new_string").String(), args.Get("replace_all").Bool())
	default:
		return "No such tool available: " + name, true
	}
	if err != nil {
		return err.Error(), true
	}
	return text, false
}

// imageType is the media type of the images the built-in Read shows the
// model, by extension; editors have no buffers for them, so they are read
// from disk.
func imageType(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}

// readImage answers a Read of an image file with the image, as the
// built-in Read does; nil for anything else.
func readImage(name string, args gjson.Result) map[string]any {
	path := args.Get("file_path").String()
	mime := imageType(path)
	if name != "Read" || mime == "" || !filepath.IsAbs(path) {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return map[string]any{"content": []map[string]any{{"type": "image", "data": base64.StdEncoding.EncodeToString(data), "mimeType": mime}}, "isError": false}
}

// errMissing is a file that neither the editor nor the disk has.
var errMissing = errors.New("missing")

// content is the file as the editor sees it (its buffer when open).
func (e *editorFS) content(ctx context.Context, path string) (string, error) {
	if e.isLocal(path) {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", errMissing
		}
		return string(data), err
	}
	resp, err := e.client.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionID: e.id, Path: path})
	if err != nil {
		data, derr := os.ReadFile(path)
		switch {
		case errors.Is(derr, fs.ErrNotExist):
			return "", errMissing
		case derr == nil && ctx.Err() == nil:
			// An editor that will not read a file (one outside its
			// project, say) has no buffer of it: the disk is the file,
			// as the CLI's own Read would find it.
			return string(data), nil
		}
		return "", err
	}
	return e.fresh(path, resp.Content), nil
}

// fresh corrects a stale editor buffer. An editor may keep answering from a
// buffer that has not caught up with a change on disk (a command the model
// ran, a git checkout). When the buffer was clean at the last look (it
// matched the disk) or was being corrected, has not changed since, and the
// disk has something else, the disk is the file; a buffer with the user's
// unsaved edits is always the file.
func (e *editorFS) fresh(path, buffer string) string {
	data, err := os.ReadFile(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.looks[path]
	stale := err == nil && ok && buffer == l.buffer && (l.clean || l.corrected) && string(data) != buffer
	e.looks[path] = look{buffer: buffer, clean: err == nil && string(data) == buffer, corrected: stale}
	if stale {
		return string(data)
	}
	return buffer
}

// look is what the editor answered for a file last time.
type look struct {
	buffer    string
	clean     bool // the disk had the same
	corrected bool // the disk was taken instead
}

func (e *editorFS) read(ctx context.Context, path string, offset, limit int64) (string, error) {
	c, err := e.content(ctx, path)
	if errors.Is(err, errMissing) {
		return "", fmt.Errorf("File does not exist. Current working directory: %s", filepath.Dir(path))
	} else if err != nil {
		return "", fmt.Errorf("The editor could not read %s: %v", path, err)
	}
	e.remember(path, c)
	return numbered(c, offset, limit), nil
}

func (e *editorFS) write(ctx context.Context, path, content string) (string, error) {
	cur, err := e.content(ctx, path)
	existed := err == nil
	switch {
	case errors.Is(err, errMissing):
	case err != nil:
		return "", fmt.Errorf("The editor could not read %s: %v", path, err)
	default:
		if err := e.check(path, cur); err != nil {
			return "", err
		}
	}
	if err := e.put(ctx, path, content); err != nil {
		return "", err
	}
	if existed {
		return "The file " + path + " has been updated successfully.", nil
	}
	return "File created successfully at: " + path, nil
}

func (e *editorFS) edit(ctx context.Context, path, old, repl string, all bool) (string, error) {
	cur, err := e.content(ctx, path)
	switch {
	case errors.Is(err, errMissing) && old == "":
		// An empty old_string creates the file, as the built-in Edit does.
		if err := e.put(ctx, path, repl); err != nil {
			return "", err
		}
		return "File created successfully at: " + path, nil
	case errors.Is(err, errMissing):
		return "", fmt.Errorf("File does not exist. Current working directory: %s", filepath.Dir(path))
	case err != nil:
		return "", fmt.Errorf("The editor could not read %s: %v", path, err)
	}
	if err := e.check(path, cur); err != nil {
		return "", err
	}
	if old == repl {
		return "", errors.New("No changes to make: old_string and new_string are exactly the same.")
	}
	n := strings.Count(cur, old)
	switch {
	case old == "" || n == 0:
		return "", fmt.Errorf("String to replace not found in file.\nString: %s", old)
	case n > 1 && !all:
		return "", fmt.Errorf("Found %d matches of the string to replace, but replace_all is false. "+
			"To replace all occurrences, set replace_all to true. To replace only one occurrence, "+
			"please provide more context to uniquely identify the instance.\nString: %s", n, old)
	}
	next := strings.Replace(cur, old, repl, map[bool]int{true: -1, false: 1}[all])
	if err := e.put(ctx, path, next); err != nil {
		return "", err
	}
	return "The file " + path + " has been updated successfully.", nil
}

// check applies the CLI's rules to a file that exists: read first, and
// unchanged since.
func (e *editorFS) check(path, cur string) error {
	e.mu.Lock()
	last, ok := e.seen[path]
	e.mu.Unlock()
	switch {
	case !ok:
		return errors.New(msgNotRead)
	case last != cur:
		return errors.New(msgModified)
	}
	return nil
}

// put writes through the editor; its refusal is the tool's error.
func (e *editorFS) put(ctx context.Context, path, content string) error {
	if e.isLocal(path) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
		e.remember(path, content)
		return nil
	}
	if _, err := e.client.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionID: e.id, Path: path, Content: content}); err != nil {
		return fmt.Errorf("The editor did not write %s: %v", path, err)
	}
	e.mu.Lock()
	// The editor may save it later (after its review): until it has,
	// the disk says nothing about its buffer.
	delete(e.looks, path)
	e.mu.Unlock()
	e.remember(path, content)
	return nil
}

func (e *editorFS) remember(path, content string) {
	e.mu.Lock()
	e.seen[path] = content
	e.mu.Unlock()
}

// numbered renders lines as the built-in Read does (cat -n: the line
// number, a tab, the line), from the 1-based offset, at most limit lines
// (0: all).
func numbered(c string, offset, limit int64) string {
	if c == "" {
		return "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
	}
	lines := strings.Split(strings.TrimSuffix(c, "\n"), "\n")
	start := max(offset, 1) - 1
	if start >= int64(len(lines)) {
		return fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", offset, len(lines))
	}
	end := int64(len(lines))
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	var b strings.Builder
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, lines[i])
	}
	return b.String()
}

// editorFS answers an mcp_message for the editor's file tools. Like a
// permission question it blocks the turn while the editor answers; the
// editor's request is cancelled with the prompt or when the CLI withdraws.
func (t *turn) editorFS(ev event) {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	defer context.AfterFunc(ev.abort, cancel)()
	defer t.r.c.hold()()
	body := t.s.efs.mcpResponse(ctx, gjson.GetBytes(ev.line, "request.message"))
	if t.r.c.answered(ev.reqID) {
		t.answerErr(t.r.c.respond(ev.reqID, body))
	}
}

// editorFSDecision is what the CLI's modes would decide for the editor's
// file tools, which its permission rules do not cover: reads inside the
// session's directories and, in acceptEdits, writes and edits are allowed,
// and so is the CLI's work on its own files (its plan file in plan mode);
// nil means ask.
func editorFSDecision(tool, mode, cwd string, dirs []string, local string, input []byte) any {
	b := builtinTool(tool)
	if b == tool {
		return nil
	}
	allow := allowAnswer{Behavior: "allow", UpdatedInput: input}
	path := gjson.GetBytes(input, "file_path").String()
	switch {
	case local != "" && inside(path, local, nil):
		return allow
	case b == "Read" && inside(path, cwd, dirs):
		return allow
	case (b == "Write" || b == "Edit") && mode == "acceptEdits":
		return allow
	}
	return nil
}

// inside reports whether path is in one of the roots.
func inside(path, cwd string, dirs []string) bool {
	for _, root := range append([]string{cwd}, dirs...) {
		if root == "" {
			continue
		}
		if r, err := filepath.Rel(root, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// editorToolResult is what the editor shows for a finished tool of the
// editor's MCP server, as for the built-in: a read's text without its line
// numbers, fenced; for writes and edits, the diff the call already shows.
func editorToolResult(tool string, r toolResult) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if r.failed || tool != "Read" {
		return resultContent(tool, gjson.Result{}, r)
	}
	text := blockText(r.block.Get("content"))
	if text == "" || strings.HasPrefix(text, "<system-reminder>") {
		return genericContent(r.block.Get("content")), nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		n, rest, ok := strings.Cut(l, "\t")
		if !ok || strings.TrimLeft(n, " 0123456789") != "" {
			return genericContent(r.block.Get("content")), nil
		}
		lines[i] = rest
	}
	return textContent(fence(strings.Join(lines, "\n")+"\n", "")), nil
}
