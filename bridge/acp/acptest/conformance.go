package acptest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// agentResults maps each agent method to the schema definition of its
// result. session/set_model is the legacy method kept for older clients; it
// is not in the schema and its result must be an object.
var agentResults = map[string]string{
	"initialize":                "InitializeResponse",
	"authenticate":              "AuthenticateResponse",
	"logout":                    "LogoutResponse",
	"session/new":               "NewSessionResponse",
	"session/load":              "LoadSessionResponse",
	"session/resume":            "ResumeSessionResponse",
	"session/list":              "ListSessionsResponse",
	"session/close":             "CloseSessionResponse",
	"session/delete":            "DeleteSessionResponse",
	"session/prompt":            "PromptResponse",
	"session/set_mode":          "SetSessionModeResponse",
	"session/set_config_option": "SetSessionConfigOptionResponse",
	"session/set_model":         "",
	// Unstable methods, checked against the unstable schema.
	"session/fork": unstablePrefix + "ForkSessionResponse",
}

// clientParams maps each method an agent may call on the client (requests
// and notifications) to the schema definition of its params.
var clientParams = map[string]string{
	"session/update":             "SessionNotification",
	"session/request_permission": "RequestPermissionRequest",
	"fs/read_text_file":          "ReadTextFileRequest",
	"fs/write_text_file":         "WriteTextFileRequest",
	"terminal/create":            "CreateTerminalRequest",
	"terminal/output":            "TerminalOutputRequest",
	"terminal/wait_for_exit":     "WaitForTerminalExitRequest",
	"terminal/kill":              "KillTerminalRequest",
	"terminal/release":           "ReleaseTerminalRequest",
	"elicitation/create":         "CreateElicitationRequest",
	"elicitation/complete":       "CompleteElicitationNotification",
	"$/cancel_request":           "CancelRequestNotification",
}

// Checker follows one conversation and validates every frame the agent
// writes: requests and notifications by their method's params, responses by
// the method of the client request they answer, errors by the Error
// definition. Safe for concurrent use.
type Checker struct {
	v       *Validator
	mu      sync.Mutex
	methods map[string]string // guarded by mu; client request id -> method
	checked int               // guarded by mu
}

// NewChecker returns a Checker for one connection.
func (v *Validator) NewChecker() *Checker {
	return &Checker{v: v, methods: make(map[string]string)}
}

// frame is the JSON-RPC envelope of any message.
type frame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// ClientFrame records a frame the client sent, so the agent's answer to it
// can be validated against the right definition.
func (c *Checker) ClientFrame(raw []byte) {
	var f frame
	if json.Unmarshal(raw, &f) != nil || f.Method == "" || len(f.ID) == 0 || string(f.ID) == "null" {
		return
	}
	c.mu.Lock()
	c.methods[string(f.ID)] = f.Method
	c.mu.Unlock()
}

// AgentFrame validates one frame the agent wrote.
func (c *Checker) AgentFrame(raw []byte) error {
	var f frame
	if err := json.Unmarshal(raw, &f); err != nil {
		return fmt.Errorf("agent wrote a frame that is not a JSON object: %w: %s", err, compactJSON(raw))
	}
	if f.JSONRPC != "2.0" {
		return fmt.Errorf(`agent frame without "jsonrpc":"2.0": %s`, compactJSON(raw))
	}
	c.mu.Lock()
	c.checked++
	c.mu.Unlock()
	switch {
	case f.Method != "":
		def, ok := clientParams[f.Method]
		if !ok && strings.HasPrefix(f.Method, "_") {
			// ACP extension method or notification: any params, but an
			// object when present (JSON-RPC 2.0 allows arrays; ACP does
			// not use them).
			var obj map[string]any
			if len(f.Params) > 0 && json.Unmarshal(f.Params, &obj) != nil {
				return fmt.Errorf("extension %s params must be an object: %s", f.Method, compactJSON(raw))
			}
			return nil
		}
		if !ok {
			return fmt.Errorf("agent called %q, which is not a client method of ACP v1: %s", f.Method, compactJSON(raw))
		}
		if err := c.v.Validate(def, f.Params); err != nil {
			return c.wrap(err, raw)
		}
		return c.wrap(sessionIDSet(f.Params), raw)
	case len(f.Error) > 0:
		c.forget(f.ID)
		return c.wrap(c.v.Validate("Error", f.Error), raw)
	case len(f.Result) > 0:
		method := c.forget(f.ID)
		def, ok := agentResults[method]
		if !ok && strings.HasPrefix(method, "_") {
			return nil // an extension method's result is the extension's own
		}
		if !ok {
			return fmt.Errorf("agent answered id %s, which no client request carried: %s", f.ID, compactJSON(raw))
		}
		if def == "" {
			var obj map[string]any
			if json.Unmarshal(f.Result, &obj) != nil {
				return fmt.Errorf("%s result must be an object: %s", method, compactJSON(raw))
			}
			return nil
		}
		return c.wrap(c.v.Validate(def, f.Result), raw)
	}
	return fmt.Errorf("agent frame is neither request, notification nor response: %s", compactJSON(raw))
}

// Checked is the number of agent frames validated so far.
func (c *Checker) Checked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checked
}

func (c *Checker) forget(id json.RawMessage) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.methods[string(id)]
	delete(c.methods, string(id))
	return m
}

func (c *Checker) wrap(err error, raw []byte) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w\nframe: %s", err, compactJSON(raw))
}

// sessionIDSet catches what the schema allows but no client can use: a
// session-scoped message whose sessionId is the empty string.
func sessionIDSet(params json.RawMessage) error {
	var p struct {
		SessionID *string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) == nil && p.SessionID != nil && *p.SessionID == "" {
		return fmt.Errorf("empty sessionId")
	}
	return nil
}
