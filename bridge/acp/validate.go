package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// DecodeParams decodes the params of a request into v and validates them.
// Every failure is an invalid-params *Error naming the field: missing or
// null params name "params", a JSON type mismatch names the field path and
// the expected type, an unknown union variant names its discriminator, other
// decoding errors name "params", and then v.Validate reports the first
// missing or invalid required field. v must be a pointer; a non-pointer is a
// programming error reported as ErrInternal.
func DecodeParams(raw json.RawMessage, v interface{ Validate() error }) error {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return InvalidParams("params", "required")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return decodeError(raw, err)
	}
	return v.Validate()
}

// decodeError maps an encoding/json error to an invalid-params error.
func decodeError(raw json.RawMessage, err error) error {
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		return err
	}
	var invalid *json.InvalidUnmarshalError
	if errors.As(err, &invalid) {
		return fmt.Errorf("%w: decoding params: %v", ErrInternal, err)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			field = "params"
		}
		return InvalidParams(field, "expected "+jsonTypeName(typeErr.Type))
	}
	var unknown *UnknownVariantError
	if errors.As(err, &unknown) {
		reason := fmt.Sprintf("unknown %s %s %q", unknown.Union, unknown.Field, unknown.Value)
		if unknown.Value == "" {
			reason = fmt.Sprintf("%s without %s", unknown.Union, unknown.Field)
		}
		// encoding/json adds no path to errors from UnmarshalJSON; find
		// the offending member so the client sees e.g. prompt[0].type.
		field := "params"
		if !strings.ContainsAny(unknown.Field, ` "`) {
			field = unknown.Field
		}
		if field != "params" && unknown.Value != "" {
			var doc any
			if json.Unmarshal(raw, &doc) == nil {
				if p := findMember(doc, "", unknown.Field, unknown.Value); p != "" {
					field = p
				}
			}
		}
		return InvalidParams(field, reason)
	}
	return InvalidParams("params", err.Error())
}

// jsonTypeName names the JSON type a Go type decodes from.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}

// requireString reports a missing (empty) required string field.
func requireString[S ~string](field string, v S) error {
	if v == "" {
		return InvalidParams(field, "required")
	}
	return nil
}

// requireAbs reports a missing or relative path.
func requireAbs(field, path string) error {
	if path == "" {
		return InvalidParams(field, "required")
	}
	if !isAbs(path) {
		return InvalidParams(field, "must be an absolute path")
	}
	return nil
}

// isAbs accepts absolute paths of the host and, so a Unix bridge can serve a
// Windows editor's paths verbatim, drive-letter paths.
func isAbs(p string) bool {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))
}

// checkDirs validates additionalDirectories.
func checkDirs(dirs []string) error {
	for i, d := range dirs {
		if err := requireAbs(fmt.Sprintf("additionalDirectories[%d]", i), d); err != nil {
			return err
		}
	}
	return nil
}

// checkServers reports MCP servers that decoded to no variant (only possible
// when built in Go) and servers without a name.
func checkServers(servers []McpServer) error {
	for i, s := range servers {
		field := fmt.Sprintf("mcpServers[%d]", i)
		switch {
		case s.Stdio != nil:
			if s.Stdio.Command == "" {
				return InvalidParams(field+".command", "required")
			}
		case s.HTTP != nil:
			if s.HTTP.URL == "" {
				return InvalidParams(field+".url", "required")
			}
		case s.SSE != nil:
			if s.SSE.URL == "" {
				return InvalidParams(field+".url", "required")
			}
		default:
			return InvalidParams(field, "unknown server type")
		}
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the required fields of initialize. Any integer protocol
// version is accepted: the agent answers with the version it speaks.
func (r InitializeRequest) Validate() error { return nil }

// Validate checks that a method id is given.
func (r AuthenticateRequest) Validate() error { return requireString("methodId", r.MethodID) }

// Validate accepts every logout request.
func (r LogoutRequest) Validate() error { return nil }

// Validate checks cwd (required, absolute), mcpServers (required, may be
// empty) and additionalDirectories (absolute).
func (r NewSessionRequest) Validate() error {
	if err := requireAbs("cwd", r.Cwd); err != nil {
		return err
	}
	if r.McpServers == nil {
		return InvalidParams("mcpServers", "required")
	}
	return firstErr(checkServers(r.McpServers), checkDirs(r.AdditionalDirectories))
}

// Validate checks sessionId, cwd (absolute) and mcpServers (required, may be
// empty).
func (r LoadSessionRequest) Validate() error {
	if err := requireString("sessionId", r.SessionID); err != nil {
		return err
	}
	if err := requireAbs("cwd", r.Cwd); err != nil {
		return err
	}
	if r.McpServers == nil {
		return InvalidParams("mcpServers", "required")
	}
	return firstErr(checkServers(r.McpServers), checkDirs(r.AdditionalDirectories))
}

// Validate checks sessionId and cwd (absolute).
func (r ResumeSessionRequest) Validate() error {
	return firstErr(requireString("sessionId", r.SessionID), requireAbs("cwd", r.Cwd),
		checkServers(r.McpServers), checkDirs(r.AdditionalDirectories))
}

// Validate checks that cwd, when given, is absolute.
func (r ListSessionsRequest) Validate() error {
	if r.Cwd != nil {
		return requireAbs("cwd", *r.Cwd)
	}
	return nil
}

// Validate checks sessionId.
func (r CloseSessionRequest) Validate() error { return requireString("sessionId", r.SessionID) }

// Validate checks sessionId.
func (r DeleteSessionRequest) Validate() error { return requireString("sessionId", r.SessionID) }

// Validate checks sessionId and that a prompt (possibly empty) is given.
func (r PromptRequest) Validate() error {
	if err := requireString("sessionId", r.SessionID); err != nil {
		return err
	}
	if r.Prompt == nil {
		return InvalidParams("prompt", "required")
	}
	return nil
}

// Validate checks sessionId.
func (r CancelNotification) Validate() error { return requireString("sessionId", r.SessionID) }

// Validate checks that requestId is present (it may be null).
func (r CancelRequestNotification) Validate() error {
	if len(r.RequestID) == 0 {
		return InvalidParams("requestId", "required")
	}
	return nil
}

// Validate checks sessionId and modeId.
func (r SetSessionModeRequest) Validate() error {
	return firstErr(requireString("sessionId", r.SessionID), requireString("modeId", r.ModeID))
}

// Validate checks sessionId, configId and value.
func (r SetSessionConfigOptionRequest) Validate() error {
	if err := firstErr(requireString("sessionId", r.SessionID), requireString("configId", r.ConfigID)); err != nil {
		return err
	}
	if r.Value.ID == nil && r.Value.Boolean == nil {
		return InvalidParams("value", "required")
	}
	return nil
}

// Validate checks sessionId and modelId of the legacy session/set_model.
func (r SetSessionModelRequest) Validate() error {
	return firstErr(requireString("sessionId", r.SessionID), requireString("modelId", r.ModelID))
}

// Validate checks that the editor's answer to a permission request has an
// outcome.
func (r RequestPermissionResponse) Validate() error {
	if countSet(r.Outcome.Cancelled != nil, r.Outcome.Selected != nil) != 1 {
		return InvalidParams("outcome", "required")
	}
	if r.Outcome.Selected != nil && r.Outcome.Selected.OptionID == "" {
		return InvalidParams("outcome.optionId", "required")
	}
	return nil
}

// findMember returns the path (a.b[2].c) of the first object member named
// key whose value is the string value, searching doc depth first.
func findMember(doc any, path, key, value string) string {
	switch d := doc.(type) {
	case map[string]any:
		if d[key] == value {
			return join(path, key)
		}
		names := make([]string, 0, len(d))
		for k := range d {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if p := findMember(d[k], join(path, k), key, value); p != "" {
				return p
			}
		}
	case []any:
		for i, v := range d {
			if p := findMember(v, fmt.Sprintf("%s[%d]", path, i), key, value); p != "" {
				return p
			}
		}
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
