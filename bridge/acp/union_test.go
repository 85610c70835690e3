package acp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestUnknownDiscriminator(t *testing.T) {
	tests := []struct {
		name  string
		into  any
		data  string
		union string
		value string
	}{
		{"content block", new(acp.ContentBlock), `{"type":"video","data":"x"}`, "ContentBlock", "video"},
		{"content block untyped", new(acp.ContentBlock), `{"text":"hi"}`, "ContentBlock", ""},
		{"session update", new(acp.SessionUpdate), `{"sessionUpdate":"mood_update"}`, "SessionUpdate", "mood_update"},
		{"session update untyped", new(acp.SessionUpdate), `{"content":{"type":"text","text":"x"}}`, "SessionUpdate", ""},
		{"tool call content", new(acp.ToolCallContent), `{"type":"image"}`, "ToolCallContent", "image"},
		{"mcp server", new(acp.McpServer), `{"type":"websocket","name":"x","url":"ws://x"}`, "McpServer", "websocket"},
		{"auth method", new(acp.AuthMethod), `{"type":"oauth","id":"x","name":"X"}`, "AuthMethod", "oauth"},
		{"permission outcome", new(acp.RequestPermissionOutcome), `{"outcome":"maybe"}`, "RequestPermissionOutcome", "maybe"},
		{"config option", new(acp.SessionConfigOption), `{"type":"slider","id":"x","name":"X"}`, "SessionConfigOption", "slider"},
		{"config option untyped", new(acp.SessionConfigOption), `{"id":"x","name":"X","currentValue":"a","options":[]}`, "SessionConfigOption", ""},
		{"embedded resource", new(acp.EmbeddedResourceResource), `{"uri":"file:///x"}`, "EmbeddedResourceResource", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tt.data), tt.into)
			var uv *acp.UnknownVariantError
			if !errors.As(err, &uv) {
				t.Fatalf("Unmarshal(%s) = %v, want *UnknownVariantError", tt.data, err)
			}
			if uv.Union != tt.union || uv.Value != tt.value {
				t.Errorf("got %+v, want union %s value %q", uv, tt.union, tt.value)
			}
			if !strings.Contains(err.Error(), tt.union) {
				t.Errorf("message %q does not name the union", err)
			}
		})
	}
}

func TestUnknownDiscriminatorNested(t *testing.T) {
	// An unknown variant deep in a notification fails the whole decode
	// instead of leaving an empty union behind.
	data := `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","content":[{"type":"hologram"}]}}`
	var n acp.SessionNotification
	var uv *acp.UnknownVariantError
	if err := json.Unmarshal([]byte(data), &n); !errors.As(err, &uv) || uv.Value != "hologram" {
		t.Fatalf("Unmarshal = %v, want unknown ToolCallContent", err)
	}
}

func TestDiscriminatorNotString(t *testing.T) {
	var c acp.ContentBlock
	if err := json.Unmarshal([]byte(`{"type":5}`), &c); err == nil {
		t.Fatal("numeric discriminator accepted")
	}
}

func TestMarshalNeedsOneVariant(t *testing.T) {
	text := acp.TextBlock("x")
	tests := []struct {
		name string
		v    any
	}{
		{"empty content block", acp.ContentBlock{}},
		{"two content variants", acp.ContentBlock{Text: text.Text, Image: &acp.ImageContent{}}},
		{"empty session update", acp.SessionUpdate{}},
		{"two session updates", acp.SessionUpdate{Plan: &acp.Plan{}, Notice: &acp.Notice{}}},
		{"empty tool content", acp.ToolCallContent{}},
		{"empty mcp server", acp.McpServer{}},
		{"empty auth method", acp.AuthMethod{}},
		{"empty outcome", acp.RequestPermissionOutcome{}},
		{"empty config option", acp.SessionConfigOption{ID: "x", Name: "X"}},
		{"empty embedded resource", acp.EmbeddedResourceResource{}},
		{"both select shapes", acp.SessionConfigSelectOptions{
			Ungrouped: []acp.SessionConfigSelectOption{}, Grouped: []acp.SessionConfigSelectGroup{}}},
		{"both config values", acp.SetSessionConfigOptionRequest{Value: acp.ConfigOptionValue{
			ID: acp.Ptr(acp.SessionConfigValueID("a")), Boolean: acp.Ptr(true)}}},
		{"nested empty block", acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{
			AgentMessageChunk: &acp.ContentChunk{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, err := json.Marshal(tt.v); err == nil {
				t.Fatalf("Marshal = %s, want an error", b)
			}
		})
	}
}

func TestMcpServerShapes(t *testing.T) {
	var s acp.McpServer
	if err := json.Unmarshal([]byte(`{"type":"stdio","name":"x","command":"/bin/x","args":[],"env":[]}`), &s); err != nil || s.Stdio == nil {
		t.Fatalf("explicit stdio: %v %+v", err, s)
	}
	b, err := json.Marshal(acp.McpServer{Stdio: &acp.McpServerStdio{Name: "x", Command: "/bin/x"}})
	if err != nil {
		t.Fatal(err)
	}
	// stdio has no "type" member, and its required arrays are [] even
	// when nil.
	if want := `{"name":"x","command":"/bin/x","args":[],"env":[]}`; string(b) != want {
		t.Errorf("stdio = %s, want %s", b, want)
	}
}

func TestAuthMethodDefaultsToAgent(t *testing.T) {
	for _, data := range []string{`{"id":"k","name":"Key"}`, `{"type":"agent","id":"k","name":"Key"}`} {
		var m acp.AuthMethod
		if err := json.Unmarshal([]byte(data), &m); err != nil || m.Agent == nil || m.Agent.ID != "k" {
			t.Errorf("Unmarshal(%s) = %v, %+v; want agent method", data, err, m)
		}
	}
}

func TestSelectOptionsShape(t *testing.T) {
	var s acp.SessionConfigSelectOptions
	if err := json.Unmarshal([]byte(`[]`), &s); err != nil || s.Ungrouped == nil || s.Grouped != nil {
		t.Errorf("empty list: %v %+v", err, s)
	}
	if err := json.Unmarshal([]byte(`[{"group":"g","name":"G","options":[{"value":"a","name":"A"}]}]`), &s); err != nil ||
		len(s.Grouped) != 1 || s.Ungrouped != nil || s.Grouped[0].Options[0].Value != "a" {
		t.Errorf("grouped: %v %+v", err, s)
	}
	if err := json.Unmarshal([]byte(`[{"value":"a","name":"A"}]`), &s); err != nil || len(s.Ungrouped) != 1 || s.Grouped != nil {
		t.Errorf("flat: %v %+v", err, s)
	}
	if b, _ := json.Marshal(acp.SessionConfigSelectOptions{}); string(b) != `[]` {
		t.Errorf("zero options marshal as %s, want []", b)
	}
}

func TestSetConfigOptionValue(t *testing.T) {
	// The schema lets an unknown "type" with a string value fall back to a
	// value id.
	var r acp.SetSessionConfigOptionRequest
	if err := json.Unmarshal([]byte(`{"sessionId":"s","configId":"c","type":"future","value":"v"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Value.ID == nil || *r.Value.ID != "v" || r.Value.Boolean != nil {
		t.Errorf("value = %+v, want id v", r.Value)
	}
}

func TestProtocolVersionIsInteger(t *testing.T) {
	var r acp.InitializeRequest
	if err := json.Unmarshal([]byte(`{"protocolVersion":"1"}`), &r); err == nil {
		t.Fatal(`"1" decoded as a protocol version`)
	}
	if err := json.Unmarshal([]byte(`{"protocolVersion":1}`), &r); err != nil || r.ProtocolVersion != acp.LatestProtocolVersion {
		t.Fatalf("1: %v %v", err, r.ProtocolVersion)
	}
}

func TestNullable(t *testing.T) {
	tests := []struct {
		data    string
		present bool
		null    bool
		title   string
	}{
		{`{}`, false, false, ""},
		{`{"title":null}`, true, true, ""},
		{`{"title":"T"}`, true, false, "T"},
	}
	for _, tt := range tests {
		var u acp.SessionInfoUpdate
		if err := json.Unmarshal([]byte(tt.data), &u); err != nil {
			t.Fatal(err)
		}
		if u.Title.Present != tt.present || u.Title.Null != tt.null || u.Title.Value != tt.title {
			t.Errorf("%s: got %+v", tt.data, u.Title)
		}
		v, ok := u.Title.Get()
		if ok != (tt.present && !tt.null) || v != tt.title {
			t.Errorf("%s: Get() = %q, %v", tt.data, v, ok)
		}
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.data {
			t.Errorf("round trip %s -> %s", tt.data, b)
		}
	}
}

func TestToolCallUpdateContentPatch(t *testing.T) {
	// nil Content leaves the client's content alone; an empty one clears it.
	keep, _ := json.Marshal(acp.ToolCallUpdate{ToolCallID: "c"})
	clear, _ := json.Marshal(acp.ToolCallUpdate{ToolCallID: "c", Content: []acp.ToolCallContent{}})
	if string(keep) != `{"toolCallId":"c"}` || string(clear) != `{"toolCallId":"c","content":[]}` {
		t.Errorf("keep = %s, clear = %s", keep, clear)
	}
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		u    acp.SessionUpdate
		kind string
	}{
		{acp.UpdateAgentText("a"), "agent_message_chunk"},
		{acp.UpdateThought("t"), "agent_thought_chunk"},
		{acp.UpdateUserText("u"), "user_message_chunk"},
		{acp.SessionUpdate{}, ""},
	}
	for _, tt := range tests {
		if got := tt.u.Kind(); got != tt.kind {
			t.Errorf("Kind() = %q, want %q", got, tt.kind)
		}
	}
	if got := acp.UpdateAgentText("a").AgentMessageChunk.Content.Text.Text; got != "a" {
		t.Errorf("UpdateAgentText text = %q", got)
	}
	d := acp.ToolContentDiff("/f", nil, "x").Diff
	if d == nil || d.Path != "/f" || d.OldText != nil || d.NewText != "x" {
		t.Errorf("ToolContentDiff = %+v", d)
	}
	if c := acp.ToolContentText("x").Content; c == nil || c.Text.Text != "x" {
		t.Errorf("ToolContentText = %+v", c)
	}
	if p := acp.Ptr(3); *p != 3 {
		t.Error("Ptr")
	}
}
