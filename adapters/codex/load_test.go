package codex

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHistory: a stored thread (thread/resume's turns, Codex 0.169 shapes)
// replays as the user's text, thoughts, agent text and finished tool calls;
// a reasoning item with raw content (strings, not input items) must not
// stop the thread from decoding.
func TestHistory(t *testing.T) {
	raw := `{"thread":{"id":"th","turns":[{"items":[
		{"type":"userMessage","id":"u","content":[{"type":"text","text":"list files","text_elements":[]}]},
		{"type":"reasoning","id":"r","summary":["Listing."],"content":["raw reasoning"]},
		{"type":"commandExecution","id":"c","command":"ls","cwd":"/p","status":"completed","aggregatedOutput":"a\n","exitCode":0,"commandActions":[]},
		{"type":"agentMessage","id":"m","text":"One file."}]}]}}`
	var res threadResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatalf("decoding a stored thread: %v", err)
	}
	var got []string
	for _, u := range history(&res.Thread) {
		if u.UserMessageChunk != nil {
			got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
			continue
		}
		got = append(got, summary(u))
	}
	want := "user: list files|thought: Listing.|tool_call execute pending->in_progress: ls|update completed: ```\na\n```\n\nExit code 0|message: One file."
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("history:\n got %q\nwant %q", g, want)
	}
}

// TestLenientDecoding: a field in a shape the adapter does not expect (a
// newer Codex) costs that field, not the message: the turn still ends.
func TestLenientDecoding(t *testing.T) {
	var ev event
	err := lenient(json.Unmarshal([]byte(`{"threadId":"th","error":"a string, not an object","turn":{"id":"t1","status":"completed"}}`), &ev))
	if err != nil || ev.Turn == nil || ev.Turn.ID != "t1" || ev.ThreadID != "th" {
		t.Errorf("decoded %+v, %v; want the turn and thread despite the odd error field", ev, err)
	}
	if err := lenient(json.Unmarshal([]byte(`{"threadId":`), &ev)); err == nil {
		t.Error("broken JSON was accepted")
	}
}
