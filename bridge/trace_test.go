package bridge

import (
	"bytes"
	"testing"
	"time"
)

func TestTraceLines(t *testing.T) {
	var b bytes.Buffer
	tr := NewTrace(&b)
	tr.now = func() time.Time { return time.Date(2026, 11, 21, 7, 38, 25, 0, time.UTC) }
	tr.Editor(true, []byte(`{"jsonrpc":"2.0", "id":1}`))
	tr.EditorConn("c-7")(false, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	tr.Agent(false, []byte("plain \"text\" from a PTY"))
	want := `{"time":"2026-11-21T07:38:25Z","dir":"editor->bridge","msg":{"jsonrpc":"2.0","id":1}}
{"time":"2026-11-21T07:38:25Z","conn":"c-7","dir":"bridge->editor","msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"time":"2026-11-21T07:38:25Z","dir":"agent->bridge","text":"plain \"text\" from a PTY"}
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
