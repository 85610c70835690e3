package acp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

type validator interface{ Validate() error }

func TestDecodeParams(t *testing.T) {
	tests := []struct {
		name      string
		new       func() validator
		params    string
		wantField string // "" = valid
	}{
		{"params missing", newOf[acp.NewSessionRequest], ``, "params"},
		{"params null", newOf[acp.NewSessionRequest], `null`, "params"},
		{"params array", newOf[acp.NewSessionRequest], `[1]`, "params"},
		{"params not json", newOf[acp.NewSessionRequest], `{"cwd":`, "params"},

		{"initialize ok", newOf[acp.InitializeRequest], `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}`, ""},
		{"initialize version string", newOf[acp.InitializeRequest], `{"protocolVersion":"1"}`, "protocolVersion"},
		{"initialize version fraction", newOf[acp.InitializeRequest], `{"protocolVersion":1.5}`, "protocolVersion"},
		{"initialize version overflow", newOf[acp.InitializeRequest], `{"protocolVersion":65536}`, "protocolVersion"},
		{"initialize nested type", newOf[acp.InitializeRequest], `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes"}}}`, "clientCapabilities.fs.readTextFile"},

		{"authenticate ok", newOf[acp.AuthenticateRequest], `{"methodId":"api-key"}`, ""},
		{"authenticate no method", newOf[acp.AuthenticateRequest], `{}`, "methodId"},
		{"logout ok", newOf[acp.LogoutRequest], `{}`, ""},

		{"new ok", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":[]}`, ""},
		{"new windows cwd", newOf[acp.NewSessionRequest], `{"cwd":"C:\\repo","mcpServers":[]}`, ""},
		{"new no cwd", newOf[acp.NewSessionRequest], `{"mcpServers":[]}`, "cwd"},
		{"new relative cwd", newOf[acp.NewSessionRequest], `{"cwd":"repo","mcpServers":[]}`, "cwd"},
		{"new cwd type", newOf[acp.NewSessionRequest], `{"cwd":5,"mcpServers":[]}`, "cwd"},
		{"new no servers", newOf[acp.NewSessionRequest], `{"cwd":"/repo"}`, "mcpServers"},
		{"new null servers", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":null}`, "mcpServers"},
		{"new servers type", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":{}}`, "mcpServers"},
		{"new server no command", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":[{"name":"x","args":[],"env":[]}]}`, "mcpServers[0].command"},
		{"new server unknown type", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":[{"type":"ws","name":"x"}]}`, "mcpServers[0].type"},
		{"new relative extra dir", newOf[acp.NewSessionRequest], `{"cwd":"/repo","mcpServers":[],"additionalDirectories":["/a","b"]}`, "additionalDirectories[1]"},

		{"load ok", newOf[acp.LoadSessionRequest], `{"sessionId":"s","cwd":"/repo","mcpServers":[]}`, ""},
		{"load no session", newOf[acp.LoadSessionRequest], `{"cwd":"/repo","mcpServers":[]}`, "sessionId"},
		{"load relative cwd", newOf[acp.LoadSessionRequest], `{"sessionId":"s","cwd":".","mcpServers":[]}`, "cwd"},
		{"load no servers", newOf[acp.LoadSessionRequest], `{"sessionId":"s","cwd":"/repo"}`, "mcpServers"},

		{"resume ok", newOf[acp.ResumeSessionRequest], `{"sessionId":"s","cwd":"/repo"}`, ""},
		{"resume no session", newOf[acp.ResumeSessionRequest], `{"cwd":"/repo"}`, "sessionId"},
		{"resume no cwd", newOf[acp.ResumeSessionRequest], `{"sessionId":"s"}`, "cwd"},

		{"list ok", newOf[acp.ListSessionsRequest], `{}`, ""},
		{"list relative cwd", newOf[acp.ListSessionsRequest], `{"cwd":"x"}`, "cwd"},
		{"close no session", newOf[acp.CloseSessionRequest], `{}`, "sessionId"},
		{"delete no session", newOf[acp.DeleteSessionRequest], `{}`, "sessionId"},

		{"prompt ok", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}`, ""},
		{"prompt empty", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":[]}`, ""},
		{"prompt no session", newOf[acp.PromptRequest], `{"prompt":[]}`, "sessionId"},
		{"prompt missing", newOf[acp.PromptRequest], `{"sessionId":"s"}`, "prompt"},
		{"prompt null", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":null}`, "prompt"},
		{"prompt text type", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":[{"type":"text","text":5}]}`, "prompt.text"},
		{"prompt block not object", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":[5]}`, "prompt"},
		{"prompt unknown block", newOf[acp.PromptRequest], `{"sessionId":"s","prompt":[{"type":"video"}]}`, "prompt[0].type"},

		{"cancel ok", newOf[acp.CancelNotification], `{"sessionId":"s"}`, ""},
		{"cancel no session", newOf[acp.CancelNotification], `{}`, "sessionId"},
		{"cancel request ok", newOf[acp.CancelRequestNotification], `{"requestId":"abc"}`, ""},
		{"cancel request null id", newOf[acp.CancelRequestNotification], `{"requestId":null}`, ""},
		{"cancel request no id", newOf[acp.CancelRequestNotification], `{}`, "requestId"},

		{"set mode ok", newOf[acp.SetSessionModeRequest], `{"sessionId":"s","modeId":"plan"}`, ""},
		{"set mode no mode", newOf[acp.SetSessionModeRequest], `{"sessionId":"s"}`, "modeId"},
		{"set mode no session", newOf[acp.SetSessionModeRequest], `{"modeId":"plan"}`, "sessionId"},

		{"set config ok", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"model","value":"opus"}`, ""},
		{"set config bool", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"t","type":"boolean","value":true}`, ""},
		{"set config no value", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"model"}`, "value"},
		{"set config null value", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"model","value":null}`, "value"},
		{"set config no config", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","value":"opus"}`, "configId"},
		{"set config no session", newOf[acp.SetSessionConfigOptionRequest], `{"configId":"model","value":"opus"}`, "sessionId"},
		{"set config bool wrong", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"t","type":"boolean","value":"yes"}`, "value"},
		{"set config number", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":"t","value":5}`, "value"},
		{"set config id type", newOf[acp.SetSessionConfigOptionRequest], `{"sessionId":"s","configId":7,"value":"x"}`, "configId"},

		{"set model ok", newOf[acp.SetSessionModelRequest], `{"sessionId":"s","modelId":"opus"}`, ""},
		{"set model no model", newOf[acp.SetSessionModelRequest], `{"sessionId":"s"}`, "modelId"},

		{"permission answer ok", newOf[acp.RequestPermissionResponse], `{"outcome":{"outcome":"selected","optionId":"allow"}}`, ""},
		{"permission answer cancelled", newOf[acp.RequestPermissionResponse], `{"outcome":{"outcome":"cancelled"}}`, ""},
		{"permission answer none", newOf[acp.RequestPermissionResponse], `{}`, "outcome"},
		{"permission answer empty", newOf[acp.RequestPermissionResponse], `{"outcome":{}}`, "outcome"},
		{"permission answer no option", newOf[acp.RequestPermissionResponse], `{"outcome":{"outcome":"selected"}}`, "outcome.optionId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := acp.DecodeParams(json.RawMessage(tt.params), tt.new())
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("DecodeParams(%s) = %v, want nil", tt.params, err)
				}
				return
			}
			checkInvalidParams(t, err, tt.wantField)
		})
	}
}

// newOf returns a fresh *T as a validator.
func newOf[T any, P interface {
	*T
	validator
}]() validator {
	return P(new(T))
}

// checkInvalidParams asserts err is an invalid-params *acp.Error naming field.
func checkInvalidParams(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want invalid params naming %q", field)
	}
	if !errors.Is(err, acp.ErrInvalidParams) {
		t.Fatalf("error %v is not ErrInvalidParams", err)
	}
	var e *acp.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not an *acp.Error", err)
	}
	data, _ := e.Data.(map[string]any)
	if data["field"] != field {
		t.Errorf("data = %v, want field %q", e.Data, field)
	}
	if want := "Invalid params: " + field + ": "; !strings.HasPrefix(e.Message, want) {
		t.Errorf("message = %q, want prefix %q", e.Message, want)
	}
	code, msg, d := e.RPCError()
	if code != -32602 || msg != e.Message || d == nil {
		t.Errorf("RPCError() = %d, %q, %v", code, msg, d)
	}
}

func TestDecodeParamsNeedsPointer(t *testing.T) {
	err := acp.DecodeParams(json.RawMessage(`{}`), acp.LogoutRequest{})
	if !errors.Is(err, acp.ErrInternal) {
		t.Fatalf("DecodeParams(non-pointer) = %v, want ErrInternal", err)
	}
}

func TestValidateGoValues(t *testing.T) {
	// Validate works on values built in Go, not only on decoded ones.
	tests := []struct {
		name  string
		v     validator
		field string
	}{
		{"new ok", acp.NewSessionRequest{Cwd: "/repo", McpServers: []acp.McpServer{}}, ""},
		{"new nil servers", acp.NewSessionRequest{Cwd: "/repo"}, "mcpServers"},
		{"new empty server", acp.NewSessionRequest{Cwd: "/repo", McpServers: []acp.McpServer{{}}}, "mcpServers[0]"},
		{"new http no url", acp.NewSessionRequest{Cwd: "/r", McpServers: []acp.McpServer{{HTTP: &acp.McpServerHttp{Name: "x"}}}}, "mcpServers[0].url"},
		{"prompt nil", acp.PromptRequest{SessionID: "s"}, "prompt"},
		{"config no value", acp.SetSessionConfigOptionRequest{SessionID: "s", ConfigID: "c"}, "value"},
		{"list nil cwd", acp.ListSessionsRequest{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.v.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			checkInvalidParams(t, err, tt.field)
		})
	}
}

func TestErrors(t *testing.T) {
	sentinels := []struct {
		err  *acp.Error
		code int
		msg  string
	}{
		{acp.ErrParse, -32700, "Parse error"},
		{acp.ErrInvalidRequest, -32600, "Invalid request"},
		{acp.ErrMethodNotFound, -32601, "Method not found"},
		{acp.ErrInvalidParams, -32602, "Invalid params"},
		{acp.ErrInternal, -32603, "Internal error"},
		{acp.ErrAuthRequired, -32000, "Authentication required"},
		{acp.ErrResourceNotFound, -32002, "Resource not found"},
		{acp.ErrRequestCancelled, -32800, "Request cancelled"},
	}
	for _, s := range sentinels {
		if s.err.Code != s.code || s.err.Message != s.msg {
			t.Errorf("sentinel %d = {%d %q}, want {%d %q}", s.code, s.err.Code, s.err.Message, s.code, s.msg)
		}
		wrapped := fmt.Errorf("%w: detail", s.err)
		if !errors.Is(wrapped, s.err) {
			t.Errorf("wrapped %v does not match its sentinel", wrapped)
		}
		if !errors.Is(acp.NewError(s.code, "other text", nil), s.err) {
			t.Errorf("NewError(%d) does not match its sentinel", s.code)
		}
		var rpc interface {
			RPCError() (int64, string, any)
		}
		if !errors.As(wrapped, &rpc) {
			t.Fatalf("%v has no RPCError", wrapped)
		}
		if code, msg, _ := rpc.RPCError(); code != int64(s.code) || msg != s.msg {
			t.Errorf("RPCError() = %d %q", code, msg)
		}
	}
	if errors.Is(acp.ErrInvalidParams, acp.ErrInternal) {
		t.Error("different codes compare equal")
	}
	if errors.Is(acp.ErrInternal, errors.New("Internal error")) {
		t.Error("a plain error with the same text matched")
	}
	b, err := json.Marshal(acp.NewError(-32002, "Resource not found", map[string]any{"uri": "file:///x"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"code":-32002,"message":"Resource not found","data":{"uri":"file:///x"}}`; string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
}
