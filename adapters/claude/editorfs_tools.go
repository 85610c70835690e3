package claude

// The editor file tools as the CLI lists them (see editorfs.go).

// editorTools are the tools/list entries: the built-ins' names and inputs.
// "anthropic/alwaysLoad" keeps them in the model's tool list: the CLI
// otherwise defers MCP tools behind its ToolSearch tool, and the model would
// have to look up how to read a file.
func editorTools() []map[string]any {
	alwaysLoad := map[string]any{"anthropic/alwaysLoad": true}
	return []map[string]any{
		{
			"name":        "Read",
			"_meta":       alwaysLoad,
			"annotations": map[string]any{"readOnlyHint": true},
			"description": "Reads a file (as the user's editor has it, unsaved changes included), or shows an image (PNG, JPEG, GIF, WebP). file_path must be absolute. Lines are returned numbered from 1; offset and limit read part of a long file.",
			"inputSchema": map[string]any{"type": "object", "required": []string{"file_path"}, "properties": map[string]any{
				"file_path": map[string]any{"type": "string", "description": "The absolute path to the file to read"},
				"offset":    map[string]any{"type": "number", "description": "The line number to start reading from"},
				"limit":     map[string]any{"type": "number", "description": "The number of lines to read"},
			}},
		},
		{
			"name":        "Write",
			"_meta":       alwaysLoad,
			"description": "Writes a file through the user's editor, replacing it if it exists. An existing file must be Read first. file_path must be absolute.",
			"inputSchema": map[string]any{"type": "object", "required": []string{"file_path", "content"}, "properties": map[string]any{
				"file_path": map[string]any{"type": "string", "description": "The absolute path to the file to write"},
				"content":   map[string]any{"type": "string", "description": "The content to write to the file"},
			}},
		},
		{
			"name":        "Edit",
			"_meta":       alwaysLoad,
			"description": "Replaces exact text in a file through the user's editor. The file must be Read first. old_string must be unique unless replace_all is set.",
			"inputSchema": map[string]any{"type": "object", "required": []string{"file_path", "old_string", "new_string"}, "properties": map[string]any{
				"file_path":   map[string]any{"type": "string", "description": "The absolute path to the file to modify"},
				"old_string":  map[string]any{"type": "string", "description": "The text to replace"},
				"new_string":  map[string]any{"type": "string", "description": "The text to replace it with"},
				"replace_all": map[string]any{"type": "boolean", "description": "Replace all occurrences of old_string", "default": false},
			}},
		},
	}
}

// editorFSConfig is the --mcp-config that declares the in-process server.
const editorFSConfig = `{"mcpServers":{"` + editorFSServer + `":{"type":"sdk","name":"` + editorFSServer + `"}}}`
