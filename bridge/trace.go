package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"
)

// Trace writes every JSON-RPC frame the bridge reads or writes, on both
// sides (the editor's and the wrapped agent's), as one JSON line each:
//
//	{"time":"2026-11-21T07:38:25.123456Z","dir":"editor->bridge","msg":{...}}
//
// dir is one of editor->bridge, bridge->editor, bridge->agent, agent->bridge.
// A native line that is not JSON (a PTY's screen output) is recorded as a
// JSON string under "text". It is the first thing to attach to a bug report.
// Methods may be called concurrently.
type Trace struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte // guarded by mu
	now func() time.Time
}

// NewTrace returns a Trace writing to w.
func NewTrace(w io.Writer) *Trace {
	return &Trace{w: w, now: time.Now}
}

// Editor records a frame on the editor side; in is true for frames read
// from the editor.
func (t *Trace) Editor(in bool, msg []byte) { t.editor("", in, msg) }

// EditorConn returns Editor for one of several editor connections (HTTP
// clients): its lines carry "conn":id so they can be told apart.
func (t *Trace) EditorConn(id string) func(in bool, msg []byte) {
	return func(in bool, msg []byte) { t.editor(id, in, msg) }
}

func (t *Trace) editor(conn string, in bool, msg []byte) {
	if in {
		t.write(conn, "editor->bridge", msg)
	} else {
		t.write(conn, "bridge->editor", msg)
	}
}

// Agent records a line on the wrapped agent's side; toAgent is true for
// lines the bridge wrote to the agent.
func (t *Trace) Agent(toAgent bool, line []byte) {
	if toAgent {
		t.write("", "bridge->agent", line)
	} else {
		t.write("", "agent->bridge", line)
	}
}

func (t *Trace) write(conn, dir string, msg []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf[:0]
	b = append(b, `{"time":"`...)
	b = t.now().UTC().AppendFormat(b, time.RFC3339Nano)
	if conn != "" {
		b = append(b, `","conn":`...)
		b = strconv.AppendQuote(b, conn)
		b = append(b, ',')
	} else {
		b = append(b, `",`...)
	}
	b = append(b, `"dir":"`...)
	b = append(b, dir...)
	if json.Valid(msg) {
		b = append(b, `","msg":`...)
		b = appendCompact(b, msg)
	} else {
		b = append(b, `","text":`...)
		b = strconv.AppendQuote(b, string(msg))
	}
	b = append(b, "}\n"...)
	t.buf = b
	t.w.Write(b) //nolint:errcheck // tracing must never break the session
}

func appendCompact(dst, src []byte) []byte {
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, src); err != nil {
		return append(dst, src...)
	}
	return buf.Bytes()
}
