package acp

import (
	"encoding/json"
)

// McpServer is an MCP server the editor asks the agent to connect to.
// Exactly one variant is set. On the wire, http and sse carry "type";
// stdio has no "type" member (an absent type means stdio).
type McpServer struct {
	Stdio *McpServerStdio
	HTTP  *McpServerHttp // "http"
	SSE   *McpServerSse  // "sse"
}

// McpServerStdio is an MCP server started as a subprocess. Every agent must
// support it.
type McpServerStdio struct {
	Name string `json:"name"`
	// Command is the absolute path of the server executable.
	Command string         `json:"command"`
	Args    []string       `json:"args"`
	Env     []EnvVariable  `json:"env"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// McpServerHttp is an MCP server reached over streamable HTTP (only when the
// agent advertised mcpCapabilities.http).
type McpServerHttp struct {
	Name    string         `json:"name"`
	URL     string         `json:"url"`
	Headers []HttpHeader   `json:"headers"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// McpServerSse is an MCP server reached over SSE (only when the agent
// advertised mcpCapabilities.sse).
type McpServerSse struct {
	Name    string         `json:"name"`
	URL     string         `json:"url"`
	Headers []HttpHeader   `json:"headers"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// EnvVariable is one environment variable of a command.
type EnvVariable struct {
	Name  string         `json:"name"`
	Value string         `json:"value"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

// HttpHeader is one HTTP header sent to an MCP server.
type HttpHeader struct {
	Name  string         `json:"name"`
	Value string         `json:"value"`
	Meta  map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (s McpServerStdio) MarshalJSON() ([]byte, error) {
	type plain McpServerStdio
	v := plain(s)
	v.Args, v.Env = nonNil(v.Args), nonNil(v.Env)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (s McpServerHttp) MarshalJSON() ([]byte, error) {
	type plain McpServerHttp
	v := plain(s)
	v.Headers = nonNil(v.Headers)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (s McpServerSse) MarshalJSON() ([]byte, error) {
	type plain McpServerSse
	v := plain(s)
	v.Headers = nonNil(v.Headers)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (s McpServer) MarshalJSON() ([]byte, error) {
	if n := countSet(s.Stdio != nil, s.HTTP != nil, s.SSE != nil); n != 1 {
		return nil, variantCountError("McpServer", n)
	}
	switch {
	case s.Stdio != nil:
		return json.Marshal(s.Stdio)
	case s.HTTP != nil:
		return marshalTagged("type", "http", s.HTTP)
	default:
		return marshalTagged("type", "sse", s.SSE)
	}
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *McpServer) UnmarshalJSON(data []byte) error {
	kind, found, err := probe(data, "type")
	if err != nil {
		return err
	}
	*s = McpServer{}
	switch {
	case !found || kind == "stdio":
		s.Stdio = new(McpServerStdio)
		return json.Unmarshal(data, s.Stdio)
	case kind == "http":
		s.HTTP = new(McpServerHttp)
		return json.Unmarshal(data, s.HTTP)
	case kind == "sse":
		s.SSE = new(McpServerSse)
		return json.Unmarshal(data, s.SSE)
	}
	return &UnknownVariantError{Union: "McpServer", Field: "type", Value: kind}
}
