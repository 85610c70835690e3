package acp

// ReadTextFileRequest is the params of fs/read_text_file (only when the
// client advertised fs.readTextFile).
type ReadTextFileRequest struct {
	SessionID SessionID `json:"sessionId"`
	// Path is absolute.
	Path string `json:"path"`
	// Line is the 1-based line to start at.
	Line *uint32 `json:"line,omitempty"`
	// Limit is the maximum number of lines.
	Limit *uint32        `json:"limit,omitempty"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

// ReadTextFileResponse is the result of fs/read_text_file.
type ReadTextFileResponse struct {
	Content string         `json:"content"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// WriteTextFileRequest is the params of fs/write_text_file (only when the
// client advertised fs.writeTextFile).
type WriteTextFileRequest struct {
	SessionID SessionID `json:"sessionId"`
	// Path is absolute.
	Path    string         `json:"path"`
	Content string         `json:"content"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// WriteTextFileResponse is the result of fs/write_text_file.
type WriteTextFileResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}
