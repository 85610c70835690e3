package rpcchild

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/internal/jsonrpc"
)

// wait bounds every wait in these tests: generous, for a busy machine.
const wait = 20 * time.Second

// child is the other end of a Conn: the test reads what the Conn writes
// to the child's stdin and writes the child's stdout.
type child struct {
	t      *testing.T
	c      *Conn
	in     *bufio.Reader  // what the Conn wrote
	out    *io.PipeWriter // the child's stdout
	ran    chan struct{}  // closed when Run has returned
	mu     sync.Mutex
	handed []string // guarded by mu; Handle's messages, as "method id params"
}

func newChild(t *testing.T, o Options) *child {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ch := &child{t: t, in: bufio.NewReader(inR), out: outW, ran: make(chan struct{})}
	if o.Name == "" {
		o.Name = "testagent"
	}
	o.Handle = func(req *jsonrpc.Request) {
		id := ""
		if req.IsCall() {
			id = req.ID.String()
		}
		ch.mu.Lock()
		ch.handed = append(ch.handed, fmt.Sprintf("%s %s %s", req.Method, id, req.Params))
		ch.mu.Unlock()
	}
	ch.c = New(outR, inW, o)
	go func() {
		defer close(ch.ran)
		ch.c.Run()
	}()
	t.Cleanup(func() {
		outW.Close()
		inR.Close()
		<-ch.ran
	})
	return ch
}

// write writes lines to the Conn as the child.
func (ch *child) write(lines ...string) {
	ch.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(ch.out, l+"\n"); err != nil {
			ch.t.Fatal(err)
		}
	}
}

// read returns the next message the Conn wrote to the child.
func (ch *child) read() map[string]json.RawMessage {
	ch.t.Helper()
	line, err := ch.in.ReadBytes('\n')
	if err != nil {
		ch.t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		ch.t.Fatalf("Conn wrote %q: %v", line, err)
	}
	return m
}

// sync makes sure the Conn has dispatched everything written before it:
// the child answers a ping, which the Conn reads after the earlier lines.
func (ch *child) sync() {
	ch.t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := ch.c.Call(context.Background(), "ping", nil)
		done <- err
	}()
	m := ch.read()
	ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"pong"}`, m["id"]))
	if err := <-done; err != nil {
		ch.t.Fatal(err)
	}
}

func (ch *child) handedSoFar() []string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return append([]string(nil), ch.handed...)
}

type result struct {
	res json.RawMessage
	err error
}

// TestAnswersMatchRequests: answers in any order reach the call that sent
// the request with that id; an error answer comes back as *Error naming
// the child.
func TestAnswersMatchRequests(t *testing.T) {
	ch := newChild(t, Options{})
	results := make([]chan result, 3)
	for i := range results {
		results[i] = make(chan result, 1)
		go func() {
			res, err := ch.c.Call(context.Background(), "m", map[string]int{"n": i})
			results[i] <- result{res, err}
		}()
	}
	ids := map[int]string{} // n -> id
	for range results {
		m := ch.read()
		var p struct{ N int }
		json.Unmarshal(m["params"], &p)
		if string(m["jsonrpc"]) != `"2.0"` || string(m["method"]) != `"m"` {
			t.Errorf("request %v", m)
		}
		ids[p.N] = string(m["id"])
	}
	ch.write(
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"n":2}}`, ids[2]),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no","data":[1]}}`, ids[0]),
		fmt.Sprintf(`{"id":%s,"result":{ "n" : 1 },"jsonrpc":"2.0"}`, ids[1]),
	)
	for i, want := range []string{"", `{"n":1}`, `{"n":2}`} {
		r := <-results[i]
		if i == 0 {
			var e *Error
			if !errors.As(r.err, &e) || e.Code != -32000 || string(e.Data) != "[1]" || e.Error() != "testagent: no (-32000)" {
				t.Errorf("call 0: %v (%T)", r.err, r.err)
			}
			continue
		}
		if r.err != nil || string(r.res) != want {
			t.Errorf("call %d: %s, %v; want %s", i, r.res, r.err, want)
		}
	}
}

// TestChildMessagesInOrder: the child's requests and notifications reach
// Handle one at a time, in the order written, interleaved with answers as
// written; an answer to no pending call is dropped.
func TestChildMessagesInOrder(t *testing.T) {
	ch := newChild(t, Options{})
	var want []string
	for i := range 200 {
		if i%10 == 3 {
			ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"i":%d}}`, i, i))
			want = append(want, fmt.Sprintf(`session/request_permission %d {"i":%d}`, i, i))
			continue
		}
		ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"i": %d}}`, i))
		want = append(want, fmt.Sprintf(`session/update  {"i":%d}`, i))
	}
	ch.write(`{"jsonrpc":"2.0","id":999,"result":{}}`)
	ch.sync()
	got := ch.handedSoFar()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("handed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Answers to the child's requests go out with the child's id.
	sent := async(func() error { return ch.c.Reply(jsonrpc.Int64ID(3), map[string]string{"outcome": "x"}) })
	if m := ch.read(); string(m["id"]) != "3" || string(m["result"]) != `{"outcome":"x"}` {
		t.Errorf("reply %v", m)
	}
	if err := <-sent; err != nil {
		t.Error(err)
	}
	sent = async(func() error { return ch.c.ReplyError(jsonrpc.StringID("s"), &Error{Code: -32601, Message: "nope"}) })
	if m := ch.read(); string(m["id"]) != `"s"` || string(m["error"]) != `{"code":-32601,"message":"nope"}` {
		t.Errorf("error reply %v", m)
	}
	if err := <-sent; err != nil {
		t.Error(err)
	}
}

// async runs f in a goroutine; its error arrives on the channel.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// TestDeathFailsPendingCalls: when the child's output ends, every pending
// call, and every later one, fails with an error that names the child, and
// Done closes.
func TestDeathFailsPendingCalls(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ended func(error) error
		want  string
	}{
		{"default", nil, "testagent closed its output"},
		{"owner's", func(err error) error { return fmt.Errorf("testagent exited with status 3: %w", err) }, "testagent exited with status 3: EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := newChild(t, Options{Ended: tt.ended})
			results := make(chan error, 5)
			for range 5 {
				go func() {
					_, err := ch.c.Call(context.Background(), "m", nil)
					results <- err
				}()
			}
			for range 5 {
				ch.read()
			}
			if ch.c.Err() != nil {
				t.Fatalf("Err before the end: %v", ch.c.Err())
			}
			ch.out.Close()
			for range 5 {
				if err := <-results; err == nil || err.Error() != tt.want {
					t.Errorf("pending call: %v, want %q", err, tt.want)
				}
			}
			select {
			case <-ch.c.Done():
			case <-time.After(wait):
				t.Fatal("Done not closed")
			}
			if _, err := ch.c.Call(context.Background(), "m", nil); err == nil || err.Error() != tt.want {
				t.Errorf("later call: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestCallGivesUpWithCtx: a call whose ctx ends returns its cause and its
// late answer is dropped.
func TestCallGivesUpWithCtx(t *testing.T) {
	ch := newChild(t, Options{})
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ch.c.Call(ctx, "m", nil)
		done <- err
	}()
	m := ch.read()
	cause := errors.New("editor went away")
	cancel(cause)
	if err := <-done; !errors.Is(err, cause) {
		t.Errorf("got %v, want the cause", err)
	}
	ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":1}`, m["id"]))
	ch.sync()
}

// TestHugeLines: a line far larger than the read buffer arrives whole; one
// over MaxLine is skipped, the call it answered fails naming the child,
// and the connection goes on.
func TestHugeLines(t *testing.T) {
	const max = 1 << 20
	ch := newChild(t, Options{MaxLine: max})
	big := strings.Repeat("x", 3*64<<10+17) // three read buffers and some
	ch.write(`{"jsonrpc":"2.0","method":"_big","params":{"s":"` + big + `"}}`)
	ch.sync()
	if got := ch.handedSoFar(); len(got) != 1 || got[0] != `_big  {"s":"`+big+`"}` {
		t.Errorf("big notification not handed whole (%d messages)", len(got))
	}

	done := make(chan error, 1)
	go func() {
		_, err := ch.c.Call(context.Background(), "m", nil)
		done <- err
	}()
	m := ch.read()
	ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"%s"}`, m["id"], strings.Repeat("y", max)))
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "testagent: ") || !strings.Contains(err.Error(), "exceeds the 1 MiB limit") {
		t.Errorf("call answered by an oversized line: %v", err)
	}
	ch.write(`{"jsonrpc":"2.0","method":"after","params":{}}`)
	ch.sync()
	if got := ch.handedSoFar(); len(got) != 2 || got[1] != "after  {}" {
		t.Errorf("after the oversized line: %q", got[1:])
	}
}

// TestMalformedLinesSkipped: blank lines, lines that are not JSON and JSON
// that is not a JSON-RPC message are skipped; what follows is read.
func TestMalformedLinesSkipped(t *testing.T) {
	ch := newChild(t, Options{})
	ch.write(
		``,
		`   `,
		`Loading model...`,
		`{"jsonrpc":"2.0","method":"x","params":`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"ok","params":{}}`,
	)
	ch.sync()
	if got := ch.handedSoFar(); len(got) != 1 || got[0] != "ok  {}" {
		t.Errorf("handed %q, want only the valid notification", got)
	}
}

// TestWithoutVersion: Codex's app-server protocol leaves "jsonrpc" out,
// of what is written and of what is read.
func TestWithoutVersion(t *testing.T) {
	ch := newChild(t, Options{Name: "codex app-server", NoVersion: true})
	sent := async(func() error { return ch.c.Notify("initialized", nil) })
	line, err := ch.in.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if string(line) != `{"method":"initialized"}`+"\n" {
		t.Errorf("wrote %q", line)
	}
	done := make(chan result, 1)
	go func() {
		res, err := ch.c.Call(context.Background(), "thread/start", map[string]int{"n": 1})
		done <- result{res, err}
	}()
	line, err = ch.in.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if string(line) != `{"id":1,"method":"thread/start","params":{"n":1}}`+"\n" {
		t.Errorf("wrote %q", line)
	}
	ch.write(`{"id":1,"result":{"thread":{}}}`)
	if r := <-done; r.err != nil || string(r.res) != `{"thread":{}}` {
		t.Errorf("answer without version: %s, %v", r.res, r.err)
	}
	sent = async(func() error { return ch.c.Reply(jsonrpc.Int64ID(7), nil) })
	if line, _ := ch.in.ReadBytes('\n'); string(line) != `{"id":7,"result":null}`+"\n" {
		t.Errorf("reply %q", line)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

// TestEmptyParamsLeftOut: a request or notification forwarded with empty
// raw params carries no params member (not params: null).
func TestEmptyParamsLeftOut(t *testing.T) {
	ch := newChild(t, Options{})
	sent := async(func() error { return ch.c.Notify("logout", json.RawMessage(nil)) })
	if m := ch.read(); len(m) != 2 || string(m["method"]) != `"logout"` {
		t.Errorf("notification %v", m)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ch.c.Call(context.Background(), "session/list", json.RawMessage{})
		done <- err
	}()
	read := make(chan map[string]json.RawMessage, 1)
	go func() {
		var m map[string]json.RawMessage
		if line, err := ch.in.ReadBytes('\n'); err == nil {
			json.Unmarshal(line, &m)
		}
		read <- m // nil once the test has ended
	}()
	select {
	case err := <-done:
		t.Fatalf("request not sent: %v", err)
	case m := <-read:
		if _, has := m["params"]; has {
			t.Errorf("request %v", m)
		}
		ch.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m["id"]))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
