package claude

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/internal/recording"
)

func TestScanDelta(t *testing.T) {
	for _, c := range []struct {
		line    string
		ok      bool
		text    string
		thought bool
		parent  string
		apiID   string
	}{
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}`,
			ok: true, text: "Hello"},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Hm."}},"parent_tool_use_id":"toolu_1","api_message_id":"msg_2"}`,
			ok: true, text: "Hm.", thought: true, parent: "toolu_1", apiID: "msg_2"},
		// Members in another order, blanks between tokens.
		{line: ` { "parent_tool_use_id" : "p" , "event" : { "delta" : { "text" : "x" , "type" : "text_delta" } , "type" : "content_block_delta" } , "type" : "stream_event" } `,
			ok: true, text: "x", parent: "p"},
		// Escapes, a surrogate pair, and nested values skipped over.
		{line: `{"type":"stream_event","extra":{"a":[1,-2.5e+3,true,false,null,{"b":"\u00e9"}]},"event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a\"b\\c\/\n\t\u00e9\ud83d\ude00"}}}`,
			ok: true, text: "a\"b\\c/\n\té😀"},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":""}}}`, ok: true},

		// Other events and shapes take the general path.
		{line: `{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","thinking":"mixed up"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta"}}}`},
		{line: `{"type":"assistant","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`},
		{line: `{"type":"stream_event","type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x","text":"y"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":7}`},
		{line: `{"\u0074ype":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`},
		// Ids with escapes: the general path unescapes them.
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":"toolu_\u0031"}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}},"api_message_id":"msg_\/1"}`},
		// Nested deeper than maxDepth.
		{line: `{"type":"stream_event","x":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `,"event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`},
		// Not JSON.
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}} x`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a` + "\n" + `b"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"\x"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"},}}`},
	} {
		d := scanDelta([]byte(c.line))
		if d.ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.line, d.ok, c.ok)
			continue
		}
		if !d.ok {
			continue
		}
		if got := string(d.appendText(nil)); got != c.text || d.thought != c.thought || string(d.parent) != c.parent || string(d.apiID) != c.apiID {
			t.Errorf("%s: text %q thought %v parent %q api id %q; want %q %v %q %q", c.line, got, d.thought, d.parent, d.apiID, c.text, c.thought, c.parent, c.apiID)
		}
		sameAsGeneral(t, []byte(c.line), d)
	}
}

// Every delta the real CLI wrote in the recordings is read by scanDelta,
// and as the general path reads it.
func TestScanDeltaRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(recordedDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s (%v)", recordedDir, err)
	}
	n := 0
	for _, f := range files {
		fx, err := recording.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range fx.Script {
			if st.Dir != recording.FromAgent || gjson.GetBytes(st.Line, "event.type").String() != "content_block_delta" {
				continue
			}
			switch gjson.GetBytes(st.Line, "event.delta.type").String() {
			case "text_delta", "thinking_delta":
			default:
				continue
			}
			d := scanDelta(st.Line)
			if !d.ok {
				t.Errorf("%s: scanDelta does not read %s", filepath.Base(f), st.Line)
				continue
			}
			sameAsGeneral(t, st.Line, d)
			n++
		}
	}
	if n < 50 {
		t.Errorf("only %d deltas in the recordings", n)
	}
}

// FuzzScanDelta holds scanDelta to the general path: whatever it accepts is
// valid JSON that the general path reads the same.
func FuzzScanDelta(f *testing.F) {
	for _, s := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Hm."}},"parent_tool_use_id":"toolu_1","api_message_id":"msg_2"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a\"b\\c\/\n\t\u00e9\ud83d\ude00\ud800\u0041\udc00"}}}`,
		`{"type":"stream_event","x":[1,-0.5e-7,{"y":[]},"z"],"event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}},"parent_tool_use_id":"toolu_\u0031","api_message_id":"m\/1"}`))
	f.Add([]byte(`[1,{"a":[true,false,null,"\ud800"]},-0.0e+1]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if validJSON(line) != gjson.ValidBytes(line) {
			t.Fatalf("validJSON(%q) = %v, gjson.Valid says %v", line, validJSON(line), gjson.ValidBytes(line))
		}
		d := scanDelta(line)
		if !d.ok {
			return
		}
		if !gjson.ValidBytes(line) {
			t.Fatalf("scanDelta read %q, which is not JSON", line)
		}
		sameAsGeneral(t, line, d)
	})
}

// sameAsGeneral checks that the general path reads line as the delta d.
func sameAsGeneral(t *testing.T, line []byte, d streamDelta) {
	t.Helper()
	root := gjson.ParseBytes(line)
	if typ := root.Get("type").String(); typ != "stream_event" {
		t.Fatalf("%s: type %q", line, typ)
	}
	tr := newTranslator("/w", zerolog.Nop())
	e, parent := tr.streamMembers(root)
	if e.Get("type").String() != "content_block_delta" {
		t.Fatalf("%s: the general path sees event type %q", line, e.Get("type").String())
	}
	text, thought, ok := deltaText(e)
	if !ok || text != string(d.appendText(nil)) || thought != d.thought || parent != string(d.parent) || tr.msgID != string(d.apiID) {
		t.Fatalf("%s:\ngeneral: %q thought %v parent %q api id %q\nscanned: %q thought %v parent %q api id %q",
			line, text, thought, parent, tr.msgID, d.appendText(nil), d.thought, d.parent, d.apiID)
	}
}

// A line nested millions deep is not JSON to the bridge, and reading it
// costs no more than its length: the recursion stops at maxDepth.
func TestValidJSONDepth(t *testing.T) {
	for _, c := range []struct {
		depth int
		want  bool
	}{{1, true}, {maxDepth, true}, {maxDepth + 1, false}, {4 << 20, false}} {
		line := strings.Repeat("[", c.depth) + strings.Repeat("]", c.depth)
		if got := validJSON([]byte(line)); got != c.want {
			t.Errorf("%d deep: validJSON = %v, want %v", c.depth, got, c.want)
		}
	}
	if validJSON([]byte(`{"a":1} x`)) || validJSON([]byte(``)) || !validJSON([]byte(` "s" `)) {
		t.Error("validJSON: wrong on a trailing value, nothing, or a lone string")
	}
}
