package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// editor is a synthetic editor connected to an in-process bridge over pipes.
// Every frame the bridge writes is validated against the official ACP schema.
type editor struct {
	t      testing.TB
	w      *io.PipeWriter
	frames chan map[string]any
	check  *acptest.Checker
	done   chan error
	nextID int
	// wait bounds how long next waits for a frame.
	wait time.Duration
}

// startEditor serves a on an in-process connection until the test ends.
func startEditor(t testing.TB, a bridge.Adapter) *editor {
	t.Helper()
	v := acptest.Load(t)
	return startEditorWith(t, a, v)
}

func startEditorWith(t testing.TB, a bridge.Adapter, v *acptest.Validator) *editor {
	return startEditorOpts(t, a, v, bridge.Options{})
}

// startEditorOpts is startEditorWith with options for the bridge (its
// Version and Logger are set here).
func startEditorOpts(t testing.TB, a bridge.Adapter, v *acptest.Validator, opts bridge.Options) *editor {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts.Version, opts.Logger = "test", zerolog.New(zerolog.NewTestWriter(t))
	srv := bridge.New(a, opts)
	e := &editor{t: t, w: inW, frames: make(chan map[string]any, 1024),
		check: v.NewChecker(), done: make(chan error, 1), wait: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := srv.ServeStdio(ctx, inR, outW)
		outW.Close()
		e.done <- err
	}()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(e.frames)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				if cerr := e.check.AgentFrame(line); cerr != nil {
					t.Errorf("schema: %v", cerr)
				}
				var m map[string]any
				if err := json.Unmarshal(line, &m); err != nil {
					t.Errorf("bridge wrote a non-JSON line: %q", line)
					continue
				}
				e.frames <- m
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-e.done:
		case <-time.After(10 * time.Second):
			t.Error("bridge did not stop after stdin EOF")
		}
		cancel()
		outR.Close()
		<-readerDone
	})
	return e
}

// send writes one raw line to the bridge.
func (e *editor) send(line string) {
	e.t.Helper()
	e.check.ClientFrame([]byte(line))
	if _, err := io.WriteString(e.w, line+"\n"); err != nil {
		e.t.Fatalf("writing to bridge: %v", err)
	}
}

// call sends a request and returns its id.
func (e *editor) call(method string, params any) int {
	e.t.Helper()
	e.nextID++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.nextID, "method": method, "params": params})
	if err != nil {
		e.t.Fatal(err)
	}
	e.send(string(b))
	return e.nextID
}

func (e *editor) notify(method string, params any) {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	e.send(string(b))
}

// respond answers a request the bridge made.
func (e *editor) respond(id any, result any) {
	e.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	e.send(string(b))
}

// next returns the next frame the bridge wrote.
func (e *editor) next() map[string]any {
	e.t.Helper()
	select {
	case m, ok := <-e.frames:
		if !ok {
			e.t.Fatal("bridge closed its output")
		}
		return m
	case <-time.After(e.wait):
		e.t.Fatal("timed out waiting for a frame from the bridge")
	}
	return nil
}

// result waits for the answer to id, collecting the frames written before
// it, and fails on an error answer.
func (e *editor) result(id int) (map[string]any, []map[string]any) {
	e.t.Helper()
	ans, before := e.answer(id)
	if ans["error"] != nil {
		e.t.Fatalf("request %d failed: %v", id, ans["error"])
	}
	res, _ := ans["result"].(map[string]any)
	return res, before
}

// answer waits for the answer to id (result or error).
func (e *editor) answer(id int) (map[string]any, []map[string]any) {
	e.t.Helper()
	var before []map[string]any
	for {
		m := e.next()
		if m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(id) {
			return m, before
		}
		before = append(before, m)
	}
}

func (e *editor) initialize() {
	e.t.Helper()
	e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
}

func (e *editor) newSession() string {
	e.t.Helper()
	res, _ := e.result(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
	return res["sessionId"].(string)
}

// jsonEqual compares two JSON values semantically.
func jsonEqual(t testing.TB, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	g, _ := json.Marshal(got)
	var gn any
	json.Unmarshal(g, &gn)
	if !reflect.DeepEqual(gn, w) {
		t.Errorf("(-want +got)\n- %s\n+ %s", want, g)
	}
}

func updateKind(m map[string]any) string {
	p, _ := m["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	s, _ := u["sessionUpdate"].(string)
	return s
}
