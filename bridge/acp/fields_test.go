package acp_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// structTypes are the object types whose Go fields mirror a schema $def.
var structTypes = []any{
	acp.Annotations{}, acp.TextContent{}, acp.ImageContent{}, acp.AudioContent{}, acp.ResourceLink{},
	acp.EmbeddedResource{}, acp.TextResourceContents{}, acp.BlobResourceContents{},
	acp.ToolCall{}, acp.ToolCallUpdate{}, acp.ToolCallLocation{}, acp.Diff{}, acp.TerminalRef{},
	acp.SessionNotification{}, acp.ContentChunk{}, acp.Plan{}, acp.PlanEntry{}, acp.AvailableCommandsUpdate{},
	acp.AvailableCommand{}, acp.UnstructuredCommandInput{}, acp.CurrentModeUpdate{}, acp.ConfigOptionUpdate{},
	acp.SessionInfoUpdate{}, acp.UsageUpdate{}, acp.Cost{}, acp.Notice{}, acp.CompactionUpdate{},
	acp.CompactionSummaryChunk{},
	acp.McpServerStdio{}, acp.McpServerHttp{}, acp.McpServerSse{}, acp.EnvVariable{}, acp.HttpHeader{},
	acp.NewSessionRequest{}, acp.NewSessionResponse{}, acp.LoadSessionRequest{}, acp.LoadSessionResponse{},
	acp.ResumeSessionRequest{}, acp.ResumeSessionResponse{}, acp.ListSessionsRequest{}, acp.ListSessionsResponse{},
	acp.SessionInfo{}, acp.CloseSessionRequest{}, acp.CloseSessionResponse{}, acp.DeleteSessionRequest{},
	acp.DeleteSessionResponse{}, acp.PromptRequest{}, acp.PromptResponse{}, acp.CancelNotification{},
	acp.CancelRequestNotification{}, acp.SessionMode{}, acp.SessionModeState{}, acp.SetSessionModeRequest{},
	acp.SetSessionModeResponse{},
	acp.InitializeRequest{}, acp.InitializeResponse{}, acp.Implementation{}, acp.ClientCapabilities{},
	acp.FileSystemCapabilities{}, acp.AuthCapabilities{}, acp.ClientSessionCapabilities{},
	acp.CompactionCapabilities{}, acp.NoticeCapabilities{}, acp.SessionConfigOptionsCapabilities{},
	acp.BooleanConfigOptionCapabilities{}, acp.ElicitationCapabilities{}, acp.ElicitationFormCapabilities{},
	acp.ElicitationUrlCapabilities{}, acp.AgentCapabilities{}, acp.PromptCapabilities{}, acp.McpCapabilities{},
	acp.SessionCapabilities{}, acp.SessionListCapabilities{}, acp.SessionDeleteCapabilities{},
	acp.SessionAdditionalDirectoriesCapabilities{}, acp.SessionResumeCapabilities{},
	acp.SessionCloseCapabilities{}, acp.AgentAuthCapabilities{}, acp.LogoutCapabilities{},
	acp.AuthMethodAgent{}, acp.AuthMethodTerminal{}, acp.AuthenticateRequest{}, acp.AuthenticateResponse{},
	acp.LogoutRequest{}, acp.LogoutResponse{},
	acp.PermissionOption{}, acp.RequestPermissionRequest{}, acp.RequestPermissionResponse{},
	acp.SelectedPermissionOutcome{},
	acp.SessionConfigOption{}, acp.SessionConfigSelect{}, acp.SessionConfigBoolean{},
	acp.SessionConfigSelectOption{}, acp.SessionConfigSelectGroup{}, acp.SetSessionConfigOptionRequest{},
	acp.SetSessionConfigOptionResponse{},
	acp.ReadTextFileRequest{}, acp.ReadTextFileResponse{}, acp.WriteTextFileRequest{}, acp.WriteTextFileResponse{},
	acp.CreateTerminalRequest{}, acp.CreateTerminalResponse{}, acp.TerminalOutputRequest{},
	acp.TerminalOutputResponse{}, acp.TerminalExitStatus{}, acp.WaitForTerminalExitRequest{},
	acp.WaitForTerminalExitResponse{}, acp.KillTerminalRequest{}, acp.KillTerminalResponse{},
	acp.ReleaseTerminalRequest{}, acp.ReleaseTerminalResponse{},
}

// unstableTypes are the types of unstable methods (fork.go), checked
// against the unstable schema's $defs.
var unstableTypes = []any{acp.ForkSessionRequest{}, acp.ForkSessionResponse{}, acp.SessionForkCapabilities{}}

// unstableFields are the Go fields of stable types that are members of the
// unstable schema only (the capabilities of unstable methods).
var unstableFields = map[string][]string{"SessionCapabilities": {"fork"}, "ClientCapabilities": {"subagents"}}

// unstableLeftOut are members of the unstable schema's $defs that the
// bridge does not serve, so has no Go field for.
var unstableLeftOut = map[string][]string{
	// Sent only to agents that advertise sessionCapabilities.systemPrompt.
	"ForkSessionRequest": {"systemPrompt"},
}

// flattened are schema members carried by a union field rather than a
// tagged Go field.
var flattened = map[string][]string{
	"SetSessionConfigOptionRequest": {"type", "value"},
}

type schemaDef struct {
	Properties map[string]struct {
		Default json.RawMessage `json:"default"`
		Type    json.RawMessage `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// TestFieldsMatchSchema checks every struct's JSON members against its
// schema $def: no member missing or invented, required members never
// omitted, optional members without a schema default always omitted when
// empty.
func TestFieldsMatchSchema(t *testing.T) {
	var schema, unstable struct {
		Defs map[string]schemaDef `json:"$defs"`
	}
	loadSchemaDefs(t, &schema)
	if err := json.Unmarshal(acptest.UnstableSchema(), &unstable); err != nil {
		t.Fatal(err)
	}
	for _, v := range structTypes {
		typ := reflect.TypeOf(v)
		name := strings.ReplaceAll(typ.Name(), "ID", "Id")
		if name == "TerminalRef" {
			name = "Terminal"
		}
		t.Run(name, func(t *testing.T) {
			def, ok := schema.Defs[name]
			if !ok {
				t.Fatalf("no $defs/%s", name)
			}
			for _, f := range unstableFields[name] {
				if _, ok := unstable.Defs[name].Properties[f]; !ok {
					t.Errorf("%q is not a member of the unstable schema's $defs/%s either", f, name)
				}
				def.Properties[f] = unstable.Defs[name].Properties[f]
			}
			checkFields(t, v, def, nil)
		})
	}
	for _, v := range unstableTypes {
		name := reflect.TypeOf(v).Name()
		t.Run("unstable/"+name, func(t *testing.T) {
			def, ok := unstable.Defs[name]
			if !ok {
				t.Fatalf("no $defs/%s in the unstable schema", name)
			}
			checkFields(t, v, def, unstableLeftOut[name])
		})
	}
}

// checkFields compares the JSON members of v's type with def; leftOut are
// schema members with no Go field on purpose.
func checkFields(t *testing.T, v any, def schemaDef, leftOut []string) {
	t.Helper()
	typ := reflect.TypeOf(v)
	name := strings.ReplaceAll(typ.Name(), "ID", "Id")
	fields := map[string]string{} // json name -> options
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || tag == "" {
			continue
		}
		jsonName, opts, _ := strings.Cut(tag, ",")
		fields[jsonName] = opts
	}
	for _, m := range flattened[name] {
		if _, ok := fields[m]; ok {
			t.Errorf("flattened member %q also has a tagged field", m)
		}
	}
	for prop, p := range def.Properties {
		opts, ok := fields[prop]
		if !ok && (slices.Contains(flattened[name], prop) || slices.Contains(leftOut, prop)) {
			continue
		}
		if !ok {
			t.Errorf("schema member %q has no Go field", prop)
			continue
		}
		omits := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		required := slices.Contains(def.Required, prop)
		switch {
		case required && omits:
			t.Errorf("required member %q is omitempty", prop)
		case !required && !omits && p.Default == nil:
			t.Errorf("optional member %q without default is always written", prop)
		}
	}
	for f := range fields {
		if _, ok := def.Properties[f]; !ok {
			t.Errorf("Go field %q is not in the schema", f)
		}
	}
	checkRequiredArrays(t, v, def)
}

// otherTypes are the modeled $defs that are not plain structs: unions,
// enums, identifiers and scalars.
var otherTypes = []any{
	acp.ContentBlock{}, acp.EmbeddedResourceResource{}, acp.SessionUpdate{}, acp.ToolCallContent{},
	acp.McpServer{}, acp.AuthMethod{}, acp.RequestPermissionOutcome{}, acp.SessionConfigSelectOptions{},
	acp.Error{},
	acp.Role(""), acp.ToolKind(""), acp.ToolCallStatus(""), acp.PlanEntryPriority(""), acp.PlanEntryStatus(""),
	acp.StopReason(""), acp.PermissionOptionKind(""), acp.NoticeSeverity(""), acp.CompactionStatus(""),
	acp.SessionConfigOptionCategory(""),
	acp.SessionID(""), acp.ToolCallID(""), acp.SessionModeID(""), acp.AuthMethodID(""), acp.PermissionOptionID(""),
	acp.SessionConfigID(""), acp.SessionConfigValueID(""), acp.SessionConfigGroupID(""), acp.TerminalID(""),
	acp.MessageID(""), acp.CompactionID(""), acp.ProtocolVersion(0),
}

// notModeled are $defs this package deliberately leaves out. Adding to the
// schema therefore fails TestSchemaCoverage until the new def is modeled or
// listed here.
var notModeled = []string{
	// JSON-RPC envelopes and extension payloads belong to the JSON-RPC layer.
	"AgentNotification", "AgentRequest", "AgentResponse", "ClientNotification", "ClientRequest", "ClientResponse",
	"ExtNotification", "ExtRequest", "ExtResponse", "ErrorCode", "RequestId",
	// Folded into ToolCallContent's "content" variant.
	"Content",
	// Elicitation: only the form-mode subset the bridge sends is modelled
	// (elicitation.go), with the scope and mode unions flattened, so these
	// defs do not mirror Go structs field for field.
	"BooleanPropertySchema", "CompleteElicitationNotification", "CreateElicitationRequest",
	"CreateElicitationResponse", "ElicitationAcceptAction", "ElicitationContentValue", "ElicitationFormMode",
	"ElicitationId", "ElicitationPropertySchema", "ElicitationRequestScope", "ElicitationSchema",
	"ElicitationSchemaType", "ElicitationSessionScope", "ElicitationUrlMode", "EnumOption",
	"IntegerPropertySchema", "MultiSelectItems", "MultiSelectPropertySchema", "NumberPropertySchema",
	"StringFormat", "StringMultiSelectItems", "StringPropertySchema", "TitledMultiSelectItems",
}

// TestSchemaCoverage checks that every schema $def is modeled or listed as
// deliberately left out.
func TestSchemaCoverage(t *testing.T) {
	var schema struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	loadSchemaDefs(t, &schema)
	// TerminalRef is spelled differently; AvailableCommandInput is an alias
	// of UnstructuredCommandInput, so reflection cannot see its name.
	known := map[string]bool{"Terminal": true, "AvailableCommandInput": true}
	for _, v := range append(append([]any{}, structTypes...), otherTypes...) {
		known[strings.ReplaceAll(reflect.TypeOf(v).Name(), "ID", "Id")] = true
	}
	for _, n := range notModeled {
		known[n] = true
	}
	for def := range schema.Defs {
		if !known[def] {
			t.Errorf("$defs/%s is neither modeled nor listed in notModeled", def)
		}
	}
}

// checkRequiredArrays marshals the zero value of v and checks that every
// array the schema requires is written as [], never null. Types whose zero
// value holds an empty union cannot be marshaled and are skipped.
func checkRequiredArrays(t *testing.T, v any, def schemaDef) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, prop := range def.Required {
		if string(def.Properties[prop].Type) != `"array"` {
			continue
		}
		if got := string(m[prop]); got != "[]" {
			t.Errorf("required array %q of a zero value is written as %q, want []", prop, got)
		}
	}
}
