package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// child plays a child process for a Conn with Options.Route over
// NewLines: the test writes the child's stdout line by line and reads what
// the Conn writes to its stdin.
type child struct {
	t    *testing.T
	conn *Conn
	out  *io.PipeWriter // the child's stdout
	in   *bufio.Reader  // the child's stdin

	mu       sync.Mutex
	routed   []string // Route's requests, as "method id params"; guarded by mu
	internal []error  // guarded by mu
}

func newChild(t *testing.T, opts Options, sopts StdioOptions) *child {
	t.Helper()
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	ch := &child{t: t, out: outW, in: bufio.NewReader(inR)}
	opts.Route = func(req *Request) {
		id := ""
		if req.IsCall() {
			id = req.ID.String()
		}
		ch.mu.Lock()
		ch.routed = append(ch.routed, fmt.Sprintf("%s %s %s", req.Method, id, req.Params))
		ch.mu.Unlock()
	}
	opts.OnInternalError = func(err error) {
		ch.mu.Lock()
		ch.internal = append(ch.internal, err)
		ch.mu.Unlock()
	}
	ch.conn = NewConn(context.Background(), NewLines(outR, inW, sopts), opts)
	t.Cleanup(func() {
		outW.Close()
		<-ch.conn.Done()
		inR.Close()
		ch.conn.Close()
	})
	return ch
}

// write writes lines as the child.
func (ch *child) write(lines ...string) {
	ch.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(ch.out, l+"\n"); err != nil {
			ch.t.Fatal(err)
		}
	}
}

// read returns the next line the Conn wrote, without its newline.
func (ch *child) read() string {
	ch.t.Helper()
	line, err := ch.in.ReadString('\n')
	if err != nil {
		ch.t.Fatal(err)
	}
	return strings.TrimSuffix(line, "\n")
}

// call starts a call, checks the request the child reads and returns it.
func (ch *child) call(method, wantLine string) *Pending {
	ch.t.Helper()
	started := make(chan *Pending, 1)
	go func() {
		p, err := ch.conn.Start(context.Background(), method, nil)
		if err != nil {
			ch.t.Error(err)
		}
		started <- p
	}()
	if got := ch.read(); got != wantLine {
		ch.t.Errorf("request %s, want %s", got, wantLine)
	}
	return <-started
}

// sync returns once the Conn has read everything written before: it
// answers a call written after it.
func (ch *child) sync() {
	ch.t.Helper()
	p := ch.call("sync", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sync"}`, ch.conn.nextID.Load()+1))
	ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":true}`, p.ID()))
	if err := p.Await(context.Background(), nil); err != nil {
		ch.t.Fatal(err)
	}
}

func (ch *child) routedSoFar() []string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return append([]string(nil), ch.routed...)
}

func (ch *child) internalErrors() []error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return append([]error(nil), ch.internal...)
}

// TestRouteInOrder: the child's requests and notifications reach Route in
// the order written, "$/cancel_request" among them, params as written
// (compacted); answers retire their calls in between; lines that are not
// JSON-RPC are reported and skipped, and nothing is written back for them.
func TestRouteInOrder(t *testing.T) {
	ch := newChild(t, Options{}, StdioOptions{})
	p := ch.call("session/prompt", `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`)
	ch.write(
		`{"jsonrpc":"2.0","method":"session/update","params":{"n": 1}}`,
		`Loading model...`,
		`{"jsonrpc":"2.0","id":"a","method":"session/request_permission","params":{}}`,
		``,
		`[1,2]`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a"}}`,
		`{"id":1,"result":{"stopReason":"end_turn"},"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"n":2}}`,
	)
	var res map[string]string
	if err := p.Await(context.Background(), &res); err != nil || res["stopReason"] != "end_turn" {
		t.Fatalf("answer %v, %v", res, err)
	}
	ch.sync()
	want := []string{
		`session/update  {"n":1}`,
		`session/request_permission "a" {}`,
		`$/cancel_request  {"requestId":"a"}`,
		`session/update  {"n":2}`,
	}
	if got := ch.routedSoFar(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("routed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if errs := ch.internalErrors(); len(errs) != 3 || !errorsContain(errs, "not JSON") || !errorsContain(errs, "neither method nor id") {
		t.Errorf("reported %v, want the three skipped lines", errs)
	}
	// The child's request is answered later, from anywhere, with its id.
	go ch.conn.Respond(StringID("a"), map[string]string{"outcome": "x"}, nil)
	if got := ch.read(); got != `{"jsonrpc":"2.0","id":"a","result":{"outcome":"x"}}` {
		t.Errorf("answer %s", got)
	}
	go ch.conn.Respond(Int64ID(9), nil, &Error{Code: -32601, Message: "nope"})
	if got := ch.read(); got != `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"nope"}}` {
		t.Errorf("error answer %s", got)
	}
}

// TestOnEnd: when the child's output ends, every pending call and every
// later one fails with what OnEnd made of it, unwrapped, and Err reports
// it.
func TestOnEnd(t *testing.T) {
	ended := errors.New("testagent exited with status 3")
	var got error
	ch := newChild(t, Options{OnEnd: func(readErr error) error { got = readErr; return ended }}, StdioOptions{})
	p := ch.call("m", `{"jsonrpc":"2.0","id":1,"method":"m"}`)
	ch.out.Close()
	if err := p.Await(context.Background(), nil); err != ended {
		t.Errorf("pending call: %v, want %v", err, ended)
	}
	<-ch.conn.Done()
	if !errors.Is(got, io.EOF) {
		t.Errorf("OnEnd given %v, want EOF", got)
	}
	if err := ch.conn.Err(); err != ended {
		t.Errorf("Err %v", err)
	}
	if _, err := ch.conn.Start(context.Background(), "m", nil); err != ended {
		t.Errorf("later call: %v", err)
	}
}

// TestOmitVersion: without the version member in what is written, and
// messages read without it are routed and answer calls.
func TestOmitVersion(t *testing.T) {
	ch := newChild(t, Options{OmitVersion: true}, StdioOptions{})
	go ch.conn.Notify(context.Background(), "initialized", nil)
	if got := ch.read(); got != `{"method":"initialized"}` {
		t.Errorf("notification %s", got)
	}
	go ch.conn.NotifyRaw(context.Background(), "x", []byte(`{}`))
	if got := ch.read(); got != `{"method":"x","params":{}}` {
		t.Errorf("raw notification %s", got)
	}
	p := ch.call("thread/start", `{"id":1,"method":"thread/start"}`)
	ch.write(`{"id":5,"method":"item/commandExecution/requestApproval","params":{"threadId":"t"}}`, `{"id":1,"result":{}}`)
	if err := p.Await(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ch.routedSoFar(); len(got) != 1 || got[0] != `item/commandExecution/requestApproval 5 {"threadId":"t"}` {
		t.Errorf("routed %q", got)
	}
	go ch.conn.Respond(Int64ID(5), nil, nil)
	if got := ch.read(); got != `{"id":5,"result":null}` {
		t.Errorf("answer %s", got)
	}
}

// TestPendingWaitAndForget: Wait gives up waiting, not the call, when its
// ctx ends, so a later Wait gets the answer; Forget drops the call without
// telling the peer, and its late answer is not reported.
func TestPendingWaitAndForget(t *testing.T) {
	ch := newChild(t, Options{}, StdioOptions{})
	p := ch.call("session/prompt", `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("turn cancelled")
	cancel(cause)
	if err := p.Wait(ctx, nil); err != cause {
		t.Fatalf("Wait with its ctx ended: %v, want the cause itself", err)
	}
	ch.write(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`)
	var res struct{ StopReason string }
	if err := p.Wait(context.Background(), &res); err != nil || res.StopReason != "cancelled" {
		t.Fatalf("second Wait: %+v, %v", res, err)
	}

	p = ch.call("thread/list", `{"jsonrpc":"2.0","id":2,"method":"thread/list"}`)
	p.Forget()
	ch.write(`{"jsonrpc":"2.0","id":2,"result":[]}`)
	ch.sync() // would read a "$/cancel_request" instead of its own request
	if errs := ch.internalErrors(); len(errs) != 0 {
		t.Errorf("reported %v", errs)
	}
}

// TestRouteTooLarge: a routed message over the limit is skipped without an
// answer, an answer over it fails the call it answers, and the lines after
// either are read.
func TestRouteTooLarge(t *testing.T) {
	const limit = 1 << 20
	ch := newChild(t, Options{}, StdioOptions{MaxMessageSize: limit})
	huge := strings.Repeat("y", limit)
	big := strings.Repeat("x", 3*readBufferSize+17) // several buffers, within the limit
	ch.write(`{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"content":"` + huge + `"}}`)
	ch.write(`{"jsonrpc":"2.0","method":"_big","params":{"s":"` + big + `"}}`)
	p := ch.call("m", `{"jsonrpc":"2.0","id":1,"method":"m"}`)
	ch.write(`{"jsonrpc":"2.0","id":1,"result":"` + huge + `"}`)
	var tooLarge *Error
	if err := p.Await(context.Background(), nil); !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "exceeds the 1 MiB limit") {
		t.Errorf("call answered over the limit: %v", err)
	}
	ch.write(`{"jsonrpc":"2.0","method":"after","params":{}}`)
	ch.sync() // the child reads no answer to request 7 before its own
	got := ch.routedSoFar()
	if len(got) != 2 || got[0] != `_big  {"s":"`+big+`"}` || got[1] != "after  {}" {
		t.Errorf("routed %d messages, want _big whole and after", len(got))
	}
}

// TestRouteAllocs: reading and routing a streamed notification allocates
// nothing once its method name has been seen.
func TestRouteAllocs(t *testing.T) {
	var n int
	c := NewConn(context.Background(), newChanStream(func([]byte) error { return nil }), Options{Route: func(*Request) { n++ }})
	defer c.Close()
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}` + "\n"
	lines := NewLines(&repeater{line: line}, io.Discard, StdioOptions{})
	// The Conn's read loop is blocked in its own stream: nothing else
	// routes meanwhile.
	route := func() {
		msg, err := lines.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c.routeMessage(msg)
	}
	route()
	if allocs := testing.AllocsPerRun(100, route); allocs != 0 {
		t.Errorf("%v allocations per routed notification", allocs)
	}
	if n != 102 { // AllocsPerRun runs once more to warm up
		t.Errorf("routed %d", n)
	}
}

// repeater is an endless input of the same line.
type repeater struct {
	line string
	off  int
}

func (r *repeater) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k := copy(b[n:], r.line[r.off:])
		n += k
		r.off = (r.off + k) % len(r.line)
	}
	return n, nil
}

// TestNewLinesAlias: a line that fits the buffer comes back without a
// copy, so the next Read may overwrite it; longer lines come whole.
func TestNewLinesAlias(t *testing.T) {
	big := strings.Repeat("z", readBufferSize+5)
	s := NewLines(strings.NewReader("one\r\n\n  two  \n"+big+"\nlast"), io.Discard, StdioOptions{})
	var got []string
	for {
		msg, err := s.Read(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(msg))
	}
	if len(got) != 4 || got[0] != "one" || got[1] != "two" || got[2] != big || got[3] != "last" {
		t.Errorf("read %d lines: %.40q", len(got), got)
	}
	if _, err := s.Read(context.Background()); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}
