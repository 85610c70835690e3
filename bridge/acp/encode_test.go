package acp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// trickyStrings exercise every escaping rule of encoding/json: quotes,
// backslashes, control characters (with and without a short escape), the
// HTML-sensitive <, > and &, U+2028/U+2029, DEL, multi-byte UTF-8 and
// invalid UTF-8 (replaced by U+FFFD).
var trickyStrings = []string{
	"",
	"plain text",
	"quote \" backslash \\ slash /",
	"newline \n tab \t return \r backspace \b feed \f",
	"\x00\x01\x02\x1e\x1f\x7f",
	"<script>alert('x')</script> & more",
	"line\u2028separator\u2029paragraph",
	"héllo wörld 日本語 🎉",
	"invalid \xff\xfe utf-8 \xc3 truncated",
	"\xed\xa0\x80 surrogate half",
	"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
}

// encodeCorpus returns values covering every shape the hand-written
// encoders produce, including their error cases.
func encodeCorpus() []any {
	var out []any
	add := func(v ...any) { out = append(out, v...) }
	meta := map[string]any{"z": 1, "a": []any{"<b>", nil, true}, "m": map[string]any{"k": 2.5}}
	ann := &acp.Annotations{Audience: []acp.Role{acp.RoleUser, acp.RoleAssistant}, LastModified: acp.Ptr("2025-01-01"), Priority: acp.Ptr(0.5), Meta: meta}
	raw := json.RawMessage("{\n  \"command\": \"ls <dir> && echo\",\n  \"n\": [1, 2]\n}")
	for _, s := range trickyStrings {
		add(notify(acp.UpdateAgentText(s)), notify(acp.UpdateThought(s)), notify(acp.UpdateUserText(s)))
		add(acp.SessionNotification{SessionID: acp.SessionID(s), Update: acp.UpdateAgentText(s), Meta: map[string]any{s: s}})
		add(acp.TextBlock(s), acp.ToolContentText(s), acp.ToolContentDiff(s, &s, s))
		add(notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: acp.ToolCallID(s), Title: s, Name: &s}}))
		add(notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(s), Title: &s,
			Locations: []acp.ToolCallLocation{{Path: s}}}}))
	}
	mid := acp.MessageID("msg-1")
	add(
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("x"), MessageID: &mid, Meta: meta}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{
			Text: "x", Annotations: ann, Meta: meta}}}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{
			Text: "x", Annotations: &acp.Annotations{}, Meta: map[string]any{}}}}}),
		acp.SessionNotification{SessionID: "s", Update: acp.UpdateAgentText("x"), Meta: map[string]any{}},
		notify(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Image: &acp.ImageContent{
			Data: "iVBO", MimeType: "image/png", URI: acp.Ptr("file:///a.png"), Annotations: ann}}}}),
		notify(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Audio: &acp.AudioContent{
			Data: "UklG", MimeType: "audio/wav", Meta: meta}}}}),
		notify(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{ResourceLink: &acp.ResourceLink{
			Name: "a", URI: "file:///a", Size: acp.Ptr(int64(12)), Title: acp.Ptr("A"), Description: acp.Ptr("d"), MimeType: acp.Ptr("text/plain")}}}}),
		notify(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Resource: &acp.EmbeddedResource{
			Resource: acp.EmbeddedResourceResource{Text: &acp.TextResourceContents{URI: "file:///a", Text: "a\n"}}}}}}),
		notify(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Resource: &acp.EmbeddedResource{
			Resource: acp.EmbeddedResourceResource{Blob: &acp.BlobResourceContents{URI: "file:///b", Blob: "AAE="}}, Meta: meta}}}}),
	)
	fullCall := &acp.ToolCall{
		ToolCallID: "call-1", Title: "Edit main.go", Name: acp.Ptr("Edit"), Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusInProgress,
		Content: []acp.ToolCallContent{
			acp.ToolContentText("done"),
			{Content: &acp.ContentBlock{Image: &acp.ImageContent{Data: "x", MimeType: "image/png"}}, ContentMeta: meta},
			acp.ToolContentDiff("/a.go", nil, "new"),
			{Diff: &acp.Diff{Path: "/b.go", OldText: acp.Ptr("old"), NewText: "new", Meta: meta}},
			{Terminal: &acp.TerminalRef{TerminalID: "term-1"}},
			{Terminal: &acp.TerminalRef{TerminalID: "term-2", Meta: meta}},
		},
		Locations: []acp.ToolCallLocation{{Path: "/a.go"}, {Path: "/b.go", Line: acp.Ptr(uint32(42)), Meta: meta}, {Path: "/c", Line: acp.Ptr(uint32(0))}},
		RawInput:  raw,
		RawOutput: map[string]any{"ok": true, "out": "<x>"},
		Meta:      meta,
	}
	add(
		notify(acp.SessionUpdate{ToolCall: fullCall}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Title: "t",
			Content: []acp.ToolCallContent{}, Locations: []acp.ToolCallLocation{}, Meta: map[string]any{}}}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Title: "t", RawInput: json.RawMessage(nil), RawOutput: ""}}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Title: "t", RawInput: map[string]any{}, RawOutput: []int(nil)}}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Title: "t", RawInput: (*int)(nil), RawOutput: 3}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c"}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
			ToolCallID: "c", Kind: acp.Ptr(acp.ToolKindExecute), Status: acp.Ptr(acp.ToolCallStatusFailed), Title: acp.Ptr("t"),
			Name: acp.Ptr("Bash"), Content: fullCall.Content, Locations: fullCall.Locations,
			RawInput: raw, RawOutput: json.RawMessage(`"out"`), Meta: meta}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c",
			Content: []acp.ToolCallContent{}, Locations: []acp.ToolCallLocation{}, Meta: map[string]any{}}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c", Kind: acp.Ptr(acp.ToolKind("")),
			Status: acp.Ptr(acp.ToolCallStatus("")), Title: acp.Ptr(""), RawInput: json.RawMessage(nil), RawOutput: json.RawMessage("null")}}),
		notify(acp.SessionUpdate{Plan: &acp.Plan{}}),
		notify(acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: "a<b", Priority: acp.PlanEntryPriorityHigh,
			Status: acp.PlanEntryStatusPending, Meta: meta}}, Meta: meta}}),
		notify(acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{}}),
		notify(acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: []acp.AvailableCommand{
			{Name: "web", Description: "Search", Input: &acp.AvailableCommandInput{Hint: "query"}}}}}),
		notify(acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: "plan", Meta: meta}}),
		notify(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{}}),
		notify(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{}}),
		notify(acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.Set("T"), UpdatedAt: acp.Null[string]()}}),
		notify(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: 1, Size: 2, Cost: &acp.Cost{Amount: 0.1, Currency: "USD"}}}),
		notify(acp.SessionUpdate{Notice: &acp.Notice{Severity: acp.NoticeSeverityWarning, Title: "t", Description: acp.Ptr("d")}}),
		notify(acp.SessionUpdate{CompactionUpdate: &acp.CompactionUpdate{CompactionID: "c", Status: acp.CompactionStatusCompleted,
			Summary: acp.Set([]acp.ContentBlock{acp.TextBlock("s")}), Error: acp.Null[string]()}}),
		notify(acp.SessionUpdate{CompactionSummaryChunk: &acp.CompactionSummaryChunk{CompactionID: "c", Content: acp.TextBlock("s")}}),
		// Errors: the text of each must stay what it was.
		notify(acp.SessionUpdate{}),
		notify(acp.SessionUpdate{Plan: &acp.Plan{}, Notice: &acp.Notice{}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{
			Text: &acp.TextContent{}, Audio: &acp.AudioContent{}}}}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", Content: []acp.ToolCallContent{{}}}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c", Content: []acp.ToolCallContent{
			{Content: &acp.ContentBlock{}}}}}),
		notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c", RawInput: json.RawMessage("{")}}),
		notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", RawOutput: make(chan int)}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("x"), Meta: map[string]any{"f": math.NaN()}}}),
		notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{
			Annotations: &acp.Annotations{Priority: acp.Ptr(math.Inf(1))}}}}}),
		acp.SessionNotification{SessionID: "s", Update: acp.UpdateAgentText("x"), Meta: map[string]any{"f": func() {}}},
		acp.ContentBlock{},
		acp.ToolCallContent{},
		acp.ToolCallContent{Content: &acp.ContentBlock{}, Diff: &acp.Diff{}},
	)
	return out
}

// randomNotifications returns n notifications of the hot shapes (and a few
// others) built from random pieces: tricky strings, present, empty or
// absent optional fields, nested unions.
func randomNotifications(n int) []any {
	r := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&", "é", "日", "🎉",
			"\u2028", "\u2029", "\xff", "\xc3", "\xed\xa0\x80", "/"}
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	ptr := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		return acp.Ptr(str())
	}
	meta := func() map[string]any {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]any{}
		}
		return map[string]any{str(): str(), "n": r.IntN(100), "l": []any{str(), nil, 1.5}}
	}
	anyValue := func() any {
		return []any{nil, json.RawMessage("{ \"a\" :\n [1, \"<x>\"] }"), map[string]any{str(): str()}, str(), json.RawMessage(nil)}[r.IntN(5)]
	}
	block := func() acp.ContentBlock {
		switch r.IntN(6) {
		case 0:
			return acp.ContentBlock{Image: &acp.ImageContent{Data: str(), MimeType: str(), URI: ptr(), Meta: meta()}}
		case 1:
			return acp.ContentBlock{ResourceLink: &acp.ResourceLink{Name: str(), URI: str(), Title: ptr()}}
		}
		var ann *acp.Annotations
		if r.IntN(3) == 0 {
			ann = &acp.Annotations{Audience: []acp.Role{acp.RoleUser}, LastModified: ptr()}
		}
		return acp.ContentBlock{Text: &acp.TextContent{Text: str(), Annotations: ann, Meta: meta()}}
	}
	contents := func() []acp.ToolCallContent {
		if k := r.IntN(4); k < 2 {
			return [][]acp.ToolCallContent{nil, {}}[k]
		}
		var out []acp.ToolCallContent
		for range r.IntN(4) + 1 {
			switch r.IntN(3) {
			case 0:
				b := block()
				out = append(out, acp.ToolCallContent{Content: &b, ContentMeta: meta()})
			case 1:
				out = append(out, acp.ToolCallContent{Diff: &acp.Diff{Path: str(), OldText: ptr(), NewText: str(), Meta: meta()}})
			default:
				out = append(out, acp.ToolCallContent{Terminal: &acp.TerminalRef{TerminalID: acp.TerminalID(str()), Meta: meta()}})
			}
		}
		return out
	}
	locations := func() []acp.ToolCallLocation {
		if k := r.IntN(3); k < 2 {
			return [][]acp.ToolCallLocation{nil, {}}[k]
		}
		return []acp.ToolCallLocation{{Path: str()}, {Path: str(), Line: acp.Ptr(uint32(r.IntN(1000))), Meta: meta()}}
	}
	chunk := func() *acp.ContentChunk {
		c := &acp.ContentChunk{Content: block(), Meta: meta()}
		if r.IntN(2) == 0 {
			c.MessageID = acp.Ptr(acp.MessageID(str()))
		}
		return c
	}
	update := func() acp.SessionUpdate {
		switch r.IntN(7) {
		case 0:
			return acp.SessionUpdate{AgentMessageChunk: chunk()}
		case 1:
			return acp.SessionUpdate{UserMessageChunk: chunk()}
		case 2:
			return acp.SessionUpdate{AgentThoughtChunk: chunk()}
		case 3:
			return acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: acp.ToolCallID(str()), Title: str(), Name: ptr(),
				Kind: acp.ToolKind(str()), Status: acp.ToolCallStatus(str()), Content: contents(), Locations: locations(),
				RawInput: anyValue(), RawOutput: anyValue(), Meta: meta()}}
		case 4:
			u := &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(str()), Title: ptr(), Name: ptr(),
				Content: contents(), Locations: locations(), RawInput: anyValue(), RawOutput: anyValue(), Meta: meta()}
			if r.IntN(2) == 0 {
				u.Kind, u.Status = acp.Ptr(acp.ToolKind(str())), acp.Ptr(acp.ToolCallStatus(str()))
			}
			return acp.SessionUpdate{ToolCallUpdate: u}
		case 5:
			return acp.SessionUpdate{Plan: &acp.Plan{Entries: []acp.PlanEntry{{Content: str()}}, Meta: meta()}}
		}
		return acp.SessionUpdate{CompactionSummaryChunk: &acp.CompactionSummaryChunk{CompactionID: acp.CompactionID(str()), Content: block()}}
	}
	out := make([]any, n)
	for i := range out {
		out[i] = acp.SessionNotification{SessionID: acp.SessionID(str()), Update: update(), Meta: meta()}
	}
	return out
}

// marshalOrError is what json.Marshal makes of v: the bytes, or the error's
// text.
func marshalOrError(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// tagged is how a union variant was encoded before the hand-written
// encoders: the variant marshalled by encoding/json, with "key":"tag"
// spliced in as its first member.
func tagged(t *testing.T, key, tag string, variant any) string {
	t.Helper()
	body, err := json.Marshal(variant)
	if err != nil {
		t.Fatalf("marshalling %T: %v", variant, err)
	}
	head := fmt.Sprintf("{%q:%q", key, tag)
	if string(body) == "{}" {
		return head + "}"
	}
	return head + "," + string(body[1:])
}

// setVariant returns the name and value of the one non-nil pointer field of
// the union u (a struct), or ok false.
func setVariant(u any) (name string, v any, ok bool) {
	rv := reflect.ValueOf(u)
	for i := range rv.NumField() {
		if f := rv.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			if ok {
				return "", nil, false
			}
			name, v, ok = rv.Type().Field(i).Name, f.Interface(), true
		}
	}
	return name, v, ok
}

// TestUnionEncodersMatchReflection checks each union's hand-written
// encoder against the generic one it replaced (tagged), on every union
// value of the corpus, nested ones included. Since the variants' own unions
// are checked the same way, the whole wire is as it was, byte for byte.
func TestUnionEncodersMatchReflection(t *testing.T) {
	var (
		updates  []acp.SessionUpdate
		blocks   []acp.ContentBlock
		contents []acp.ToolCallContent
	)
	for _, v := range append(encodeCorpus(), randomNotifications(2000)...) {
		switch v := v.(type) {
		case acp.SessionNotification:
			updates = append(updates, v.Update)
		case acp.ContentBlock:
			blocks = append(blocks, v)
		case acp.ToolCallContent:
			contents = append(contents, v)
		}
	}
	for _, u := range updates {
		for _, c := range []*acp.ContentChunk{u.UserMessageChunk, u.AgentMessageChunk, u.AgentThoughtChunk} {
			if c != nil {
				blocks = append(blocks, c.Content)
			}
		}
		if u.ToolCall != nil {
			contents = append(contents, u.ToolCall.Content...)
		}
		if u.ToolCallUpdate != nil {
			contents = append(contents, u.ToolCallUpdate.Content...)
		}
	}
	for _, c := range contents {
		if c.Content != nil {
			blocks = append(blocks, *c.Content)
		}
	}
	check := func(v json.Marshaler, want func() string) {
		t.Helper()
		got, err := v.MarshalJSON()
		if err != nil {
			return // error texts: see TestMarshalErrorText
		}
		if w := want(); string(got) != w {
			t.Errorf("%T\n got: %s\nwant: %s", v, got, w)
		}
	}
	blockTags := map[string]string{"Text": "text", "Image": "image", "Audio": "audio", "ResourceLink": "resource_link", "Resource": "resource"}
	for _, b := range blocks {
		check(b, func() string {
			name, v, _ := setVariant(b)
			return tagged(t, "type", blockTags[name], v)
		})
	}
	for _, c := range contents {
		check(c, func() string {
			switch {
			case c.Content != nil:
				return tagged(t, "type", "content", struct {
					Content acp.ContentBlock `json:"content"`
					Meta    map[string]any   `json:"_meta,omitempty"`
				}{*c.Content, c.ContentMeta})
			case c.Diff != nil:
				return tagged(t, "type", "diff", c.Diff)
			}
			return tagged(t, "type", "terminal", c.Terminal)
		})
	}
	for _, u := range updates {
		check(u, func() string {
			_, v, _ := setVariant(u)
			return tagged(t, "sessionUpdate", u.Kind(), v)
		})
	}
	if len(updates) < 50 || len(blocks) < 50 || len(contents) < 30 {
		t.Errorf("corpus too small: %d updates, %d blocks, %d tool contents", len(updates), len(blocks), len(contents))
	}
}

// TestMarshalErrorText pins the text of errors from nested unions, which
// callers log: the hand-written encoders word them as encoding/json did.
func TestMarshalErrorText(t *testing.T) {
	const su = "json: error calling MarshalJSON for type acp.SessionUpdate: "
	tests := []struct {
		name string
		n    acp.SessionNotification
		want string
	}{
		{"no variant", notify(acp.SessionUpdate{}), su + "acp: SessionUpdate has no variant set"},
		{"empty block", notify(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{}}),
			su + "json: error calling MarshalJSON for type acp.ContentBlock: acp: ContentBlock has no variant set"},
		{"empty block in tool content", notify(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c",
			Content: []acp.ToolCallContent{{Content: &acp.ContentBlock{}}}}}),
			su + "json: error calling MarshalJSON for type acp.ToolCallContent: " +
				"json: error calling MarshalJSON for type acp.ContentBlock: acp: ContentBlock has no variant set"},
		{"invalid raw input", notify(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "c", RawInput: json.RawMessage("{")}}),
			su + "json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"},
		{"bad meta", acp.SessionNotification{SessionID: "s", Update: acp.UpdateAgentText("x"), Meta: map[string]any{"f": func() {}}},
			"json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := json.Marshal(tt.n); err == nil || err.Error() != tt.want {
				t.Errorf("json.Marshal error\n got: %v\nwant: %s", err, tt.want)
			}
			if b, err := tt.n.AppendJSON([]byte("x")); err == nil || err.Error() != tt.want || string(b) != "x" {
				t.Errorf("AppendJSON = %q, %v\nwant x, %s", b, err, tt.want)
			}
		})
	}
}

// TestAppendJSON checks that SessionNotification.AppendJSON, the
// connection's encoder, writes exactly what json.Marshal writes, appending
// to what is already in dst.
func TestAppendJSON(t *testing.T) {
	for i, v := range append(encodeCorpus(), randomNotifications(2000)...) {
		n, ok := v.(acp.SessionNotification)
		if !ok {
			continue
		}
		want := marshalOrError(n)
		prefix := []byte("prefix:")
		got, err := n.AppendJSON(prefix)
		if err != nil {
			if g := "error: " + err.Error(); g != want {
				t.Errorf("%d: AppendJSON error\n got: %s\nwant: %s", i, g, want)
			}
			continue
		}
		if !bytes.HasPrefix(got, prefix) || string(got[len(prefix):]) != want {
			t.Errorf("%d: AppendJSON\n got: %s\nwant: prefix:%s", i, got, want)
		}
	}
}

// FuzzAppendJSONText checks the text chunk fast path against json.Marshal
// for arbitrary text and session ids.
func FuzzAppendJSONText(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, "sess-1")
	}
	f.Fuzz(func(t *testing.T, text, id string) {
		n := acp.SessionNotification{SessionID: acp.SessionID(id), Update: acp.UpdateAgentText(text)}
		want, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := n.AppendJSON(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON = %s, %v\nwant %s", got, err, want)
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8 in %q", got)
		}
	})
}

// BenchmarkMarshalTextChunk encodes the bulk of a turn, one
// agent_message_chunk notification, through encoding/json (any caller) and
// through AppendJSON into a reused buffer (the connection's path).
func BenchmarkMarshalTextChunk(b *testing.B) {
	n := acp.SessionNotification{SessionID: "sess_0123456789", Update: acp.UpdateAgentText(
		"Hello, this is a streamed chunk of an agent message.\n")}
	want, err := json.Marshal(n)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(want)))
		for b.Loop() {
			if _, err := json.Marshal(n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(want)))
		buf := make([]byte, 0, 512)
		for b.Loop() {
			var err error
			if buf, err = n.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
		if string(buf) != string(want) {
			b.Fatalf("AppendJSON = %s, want %s", buf, want)
		}
	})
}
