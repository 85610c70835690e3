package acp

import (
	"encoding/json"
)

// ProtocolVersion is the ACP major version, an integer on the wire (0 to
// 65535). A string such as "1" does not decode.
type ProtocolVersion uint16

// LatestProtocolVersion is the protocol version this package implements.
const LatestProtocolVersion ProtocolVersion = 1

// InitializeRequest is the params of initialize.
type InitializeRequest struct {
	ProtocolVersion    ProtocolVersion    `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               map[string]any     `json:"_meta,omitempty"`
}

// InitializeResponse is the result of initialize.
type InitializeResponse struct {
	ProtocolVersion   ProtocolVersion   `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	// AuthMethods always marshals, as [] when nil.
	AuthMethods []AuthMethod    `json:"authMethods"`
	AgentInfo   *Implementation `json:"agentInfo,omitempty"`
	Meta        map[string]any  `json:"_meta,omitempty"`
}

// Implementation names a client or agent program.
type Implementation struct {
	Name    string         `json:"name"`
	Title   *string        `json:"title,omitempty"`
	Version string         `json:"version"`
	Meta    map[string]any `json:"_meta,omitempty"`
}

// ClientCapabilities is what the editor supports.
type ClientCapabilities struct {
	Fs FileSystemCapabilities `json:"fs"`
	// Terminal is true when the client supports all terminal/* methods.
	Terminal    bool                       `json:"terminal"`
	Session     *ClientSessionCapabilities `json:"session,omitempty"`
	Auth        AuthCapabilities           `json:"auth,omitzero"`
	Elicitation *ElicitationCapabilities   `json:"elicitation,omitempty"`
	// Subagents is set when the client takes child sessions (unstable).
	Subagents *SubagentCapabilities `json:"subagents,omitempty"`
	Meta      map[string]any        `json:"_meta,omitempty"`
}

// FileSystemCapabilities says which fs/* methods the client serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool           `json:"readTextFile"`
	WriteTextFile bool           `json:"writeTextFile"`
	Meta          map[string]any `json:"_meta,omitempty"`
}

// AuthCapabilities says which authentication method types the client
// supports.
type AuthCapabilities struct {
	// Terminal is true when the client can run terminal auth methods.
	Terminal bool           `json:"terminal,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// ClientSessionCapabilities lists optional session updates the client
// understands.
type ClientSessionCapabilities struct {
	Compaction    *CompactionCapabilities           `json:"compaction,omitempty"`
	ConfigOptions *SessionConfigOptionsCapabilities `json:"configOptions,omitempty"`
	Notices       *NoticeCapabilities               `json:"notices,omitempty"`
	Meta          map[string]any                    `json:"_meta,omitempty"`
}

// CompactionCapabilities, when present, means the client understands
// compaction_update and compaction_summary_chunk.
type CompactionCapabilities struct{}

// NoticeCapabilities, when present, means the client shows notice updates.
type NoticeCapabilities struct{}

// SessionConfigOptionsCapabilities lists the config option kinds the client
// supports beyond select.
type SessionConfigOptionsCapabilities struct {
	Boolean *BooleanConfigOptionCapabilities `json:"boolean,omitempty"`
	Meta    map[string]any                   `json:"_meta,omitempty"`
}

// BooleanConfigOptionCapabilities, when present, means the client supports
// boolean config options.
type BooleanConfigOptionCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// ElicitationCapabilities lists the elicitation modes the client supports.
type ElicitationCapabilities struct {
	Form *ElicitationFormCapabilities `json:"form,omitempty"`
	URL  *ElicitationUrlCapabilities  `json:"url,omitempty"`
	Meta map[string]any               `json:"_meta,omitempty"`
}

// ElicitationFormCapabilities, when present, means form elicitation is
// supported.
type ElicitationFormCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// ElicitationUrlCapabilities, when present, means URL elicitation is
// supported.
type ElicitationUrlCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// AgentCapabilities is what the agent supports.
type AgentCapabilities struct {
	LoadSession         bool                  `json:"loadSession"`
	PromptCapabilities  PromptCapabilities    `json:"promptCapabilities"`
	McpCapabilities     McpCapabilities       `json:"mcpCapabilities"`
	SessionCapabilities SessionCapabilities   `json:"sessionCapabilities"`
	Auth                AgentAuthCapabilities `json:"auth,omitzero"`
	Meta                map[string]any        `json:"_meta,omitempty"`
}

// PromptCapabilities lists the content kinds the agent accepts in prompts
// beyond text and resource links.
type PromptCapabilities struct {
	Image           bool           `json:"image"`
	Audio           bool           `json:"audio"`
	EmbeddedContext bool           `json:"embeddedContext"`
	Meta            map[string]any `json:"_meta,omitempty"`
}

// McpCapabilities lists the MCP transports the agent accepts beyond stdio.
type McpCapabilities struct {
	HTTP bool           `json:"http"`
	SSE  bool           `json:"sse"`
	Meta map[string]any `json:"_meta,omitempty"`
}

// SessionCapabilities lists the optional session methods the agent serves;
// a nil member means unsupported.
type SessionCapabilities struct {
	List                  *SessionListCapabilities                  `json:"list,omitempty"`
	Delete                *SessionDeleteCapabilities                `json:"delete,omitempty"`
	AdditionalDirectories *SessionAdditionalDirectoriesCapabilities `json:"additionalDirectories,omitempty"`
	Resume                *SessionResumeCapabilities                `json:"resume,omitempty"`
	Close                 *SessionCloseCapabilities                 `json:"close,omitempty"`
	// Fork is unstable (fork.go).
	Fork *SessionForkCapabilities `json:"fork,omitempty"`
	Meta map[string]any           `json:"_meta,omitempty"`
}

// SessionListCapabilities, when present, means session/list is served.
type SessionListCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SessionDeleteCapabilities, when present, means session/delete is served.
type SessionDeleteCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SessionAdditionalDirectoriesCapabilities, when present, means
// additionalDirectories is honoured.
type SessionAdditionalDirectoriesCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SessionResumeCapabilities, when present, means session/resume is served.
type SessionResumeCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// SessionCloseCapabilities, when present, means session/close is served.
type SessionCloseCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// AgentAuthCapabilities lists optional authentication methods of the agent.
type AgentAuthCapabilities struct {
	Logout *LogoutCapabilities `json:"logout,omitempty"`
	Meta   map[string]any      `json:"_meta,omitempty"`
}

// LogoutCapabilities, when present, means logout is served.
type LogoutCapabilities struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// AuthMethodID identifies an authentication method.
type AuthMethodID string

// AuthMethod is a way to log in. Exactly one variant is set. On the wire
// "type" is "terminal" for Terminal; it is absent (or "agent") for Agent,
// the default.
type AuthMethod struct {
	Agent    *AuthMethodAgent
	Terminal *AuthMethodTerminal // "terminal"
}

// AuthMethodAgent is handled by the agent through authenticate.
type AuthMethodAgent struct {
	ID          AuthMethodID   `json:"id"`
	Name        string         `json:"name"`
	Description *string        `json:"description,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// AuthMethodTerminal is run by the client: it starts the agent program again,
// interactively, with Args and Env added, for the user to log in.
type AuthMethodTerminal struct {
	ID          AuthMethodID      `json:"id"`
	Name        string            `json:"name"`
	Description *string           `json:"description,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

// AuthenticateRequest is the params of authenticate.
type AuthenticateRequest struct {
	MethodID AuthMethodID   `json:"methodId"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// AuthenticateResponse is the result of authenticate.
type AuthenticateResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// LogoutRequest is the params of logout.
type LogoutRequest struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// LogoutResponse is the result of logout.
type LogoutResponse struct {
	Meta map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (r InitializeResponse) MarshalJSON() ([]byte, error) {
	type plain InitializeResponse
	v := plain(r)
	v.AuthMethods = nonNil(v.AuthMethods)
	return json.Marshal(v)
}

// MarshalJSON implements json.Marshaler.
func (m AuthMethod) MarshalJSON() ([]byte, error) {
	if n := countSet(m.Agent != nil, m.Terminal != nil); n != 1 {
		return nil, variantCountError("AuthMethod", n)
	}
	if m.Terminal != nil {
		return marshalTagged("type", "terminal", m.Terminal)
	}
	return json.Marshal(m.Agent)
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *AuthMethod) UnmarshalJSON(data []byte) error {
	kind, found, err := probe(data, "type")
	if err != nil {
		return err
	}
	*m = AuthMethod{}
	switch {
	case !found || kind == "agent":
		m.Agent = new(AuthMethodAgent)
		return json.Unmarshal(data, m.Agent)
	case kind == "terminal":
		m.Terminal = new(AuthMethodTerminal)
		return json.Unmarshal(data, m.Terminal)
	}
	return &UnknownVariantError{Union: "AuthMethod", Field: "type", Value: kind}
}
