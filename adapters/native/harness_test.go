package native_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/auto"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpagent"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/leakcheck"
)

// agentEnv makes this test binary the scripted native-ACP agent (the
// fork/exec trick): real processes, no extra binary to build.
const agentEnv = "ACPBRIDGE_TEST_ACPAGENT"

func TestMain(m *testing.M) {
	if os.Getenv(agentEnv) == "1" {
		os.Exit(acpagent.Run(os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	// One validator serves every test: parsing the schema is most of a
	// short test's time under the race detector. Loading it here, before
	// any test, reports a broken schema once instead of failing each test
	// that needs it.
	v, err := acptest.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loading the ACP schema:", err)
		os.Exit(1)
	}
	schema = v
	os.Exit(leakcheck.Main(m))
}

// schema is set by TestMain before any test runs, and only read after.
var schema *acptest.Validator

// wait bounds every wait on a real agent process: generous, as the machine
// may be busy (a node CLI's first answer has taken over 20 s on a loaded
// two-core machine).
const wait = 45 * time.Second

// frame is any JSON-RPC message the editor sees.
type frame struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error,omitempty"`
	// notesBefore is, for an answer, how many notifications the editor
	// had read before it.
	notesBefore int
}

// editor drives a bridge serving the passthrough adapter, in this process,
// over pipes. Every frame the bridge writes is checked against the ACP
// schema; requests from the bridge are answered by answer.
type editor struct {
	t     *testing.T
	w     io.WriteCloser
	check *acptest.Checker
	// answer handles the bridge's requests; nil answers method-not-found.
	answer func(method string, params json.RawMessage) (any, error)
	// answerWith, when set, is answer for handlers that talk to the
	// bridge before answering.
	answerWith func(e *editor, method string, params json.RawMessage) (any, error)
	agent      *native.Adapter
	// toAgent records the methods the bridge sent to agents, in order.
	toAgent chan string
	// cancels records the params of each session/cancel sent to agents.
	cancels chan json.RawMessage
	// commandsFromAgent counts the available_commands_update the agents
	// sent.
	commandsFromAgent atomic.Int32

	wmu  sync.Mutex
	mu   sync.Mutex
	next int
	wait map[string]chan frame // guarded by mu
	// notes are the notifications received, in order; noted is signalled
	// after each.
	notes []frame // guarded by mu
	// asked are the requests received, in order, each with notesBefore.
	asked []frame // guarded by mu
	// offSchema holds the ids of requests of methods outside ACP (an
	// agent's own, unprefixed), whose answers the schema cannot check.
	offSchema map[string]bool // guarded by mu
	noted     chan struct{}
}

// askedAt returns how many notifications the editor had read before each
// request of method from the bridge.
func (e *editor) askedAt(method string) []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []int
	for _, a := range e.asked {
		if a.Method == method {
			out = append(out, a.notesBefore)
		}
	}
	return out
}

type options struct {
	env        []string
	grace      time.Duration
	answer     func(method string, params json.RawMessage) (any, error)
	answerWith func(e *editor, method string, params json.RawMessage) (any, error)
	// agent, when set, is the agent to run instead of the scripted one
	// (its Logger, Trace and grace fields are the harness's).
	agent *native.Options
	// adapt, if set, changes the adapter's options (test hooks).
	adapt func(native.Options) native.Options
	// unstable checks frames against the pinned unstable schema (for
	// what only it has: sub-agents).
	unstable bool
	// auto serves the agent as `acpbridge auto` does, its one agent.
	auto bool
}

// aloneAndAuto runs test as two parallel subtests: with the agent served
// alone, and through `auto` (options.auto).
func aloneAndAuto(t *testing.T, test func(t *testing.T, auto bool)) {
	for _, auto := range []bool{false, true} {
		name := "alone"
		if auto {
			name = "auto"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, auto)
		})
	}
}

// start serves a bridge for the scripted agent until the test ends.
func start(t *testing.T, o options) *editor {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	check := schema
	if o.unstable {
		check = acptest.LoadUnstable(t)
	}
	e := &editor{t: t, check: check.NewChecker(), answer: o.answer, answerWith: o.answerWith,
		wait: map[string]chan frame{}, noted: make(chan struct{}, 1), toAgent: make(chan string, 1000),
		cancels: make(chan json.RawMessage, 10)}
	log := zerolog.New(zerolog.NewTestWriter(t))
	ao := native.Options{Name: "acpagent", Path: exe,
		Env: append([]string{agentEnv + "=1", "ACPAGENT_STATE=" + t.TempDir()}, o.env...)}
	if o.agent != nil {
		ao = *o.agent
	}
	ao.CancelGrace, ao.StopGrace, ao.Logger = o.grace, 200*time.Millisecond, log
	ao.Trace = func(toAgent bool, line []byte) {
		if !toAgent && bytes.Contains(line, []byte(`"available_commands_update"`)) {
			e.commandsFromAgent.Add(1)
		}
		var f frame
		if toAgent && json.Unmarshal(line, &f) == nil && f.Method != "" {
			select {
			case e.toAgent <- f.Method:
			default:
			}
			if f.Method == "session/cancel" {
				select {
				case e.cancels <- f.Params:
				default:
				}
			}
		}
	}
	if o.adapt != nil {
		ao = o.adapt(ao)
	}
	e.agent = native.New(ao)
	var ad bridge.Adapter = e.agent
	if o.auto {
		ad = auto.New([]auto.Agent{{Name: "acpagent", Title: "Scripted agent",
			Start: func() (acp.Adapter, error) { return e.agent, nil }}}, auto.Options{Logger: log})
	}
	srv := bridge.New(ad, bridge.Options{Logger: log})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e.w = inW
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(served)
		srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(read)
		e.read(outR)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-served
		<-read
		e.agent.Close()
	})
	return e
}

func (e *editor) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var f frame
		jerr := json.Unmarshal(line, &f)
		e.mu.Lock()
		off := f.Method == "" && e.offSchema[string(f.ID)]
		e.mu.Unlock()
		if err := e.check.AgentFrame(line); err != nil && !off {
			e.t.Errorf("bridge wrote a frame that fails the ACP schema: %v", err)
		}
		if jerr != nil {
			e.t.Errorf("bridge wrote %q: %v", line, jerr)
			continue
		}
		switch {
		case f.Method == "" && len(f.ID) > 0:
			e.mu.Lock()
			ch := e.wait[string(f.ID)]
			delete(e.wait, string(f.ID))
			f.notesBefore = len(e.notes)
			e.mu.Unlock()
			if ch != nil {
				ch <- f
			}
		case len(f.ID) > 0:
			e.mu.Lock()
			f.notesBefore = len(e.notes)
			e.asked = append(e.asked, f)
			e.mu.Unlock()
			go e.serve(f)
		default:
			e.mu.Lock()
			e.notes = append(e.notes, f)
			e.mu.Unlock()
			select {
			case e.noted <- struct{}{}:
			default:
			}
		}
	}
}

// serve answers one request from the bridge.
func (e *editor) serve(f frame) {
	var res any = nil
	var err error = fmt.Errorf("no handler")
	switch {
	case e.answerWith != nil:
		res, err = e.answerWith(e, f.Method, f.Params)
	case e.answer != nil:
		res, err = e.answer(f.Method, f.Params)
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": f.ID}
	if err != nil {
		msg["error"] = map[string]any{"code": -32601, "message": err.Error()}
	} else {
		msg["result"] = res
	}
	e.send(msg)
}

func (e *editor) send(msg map[string]any) {
	b, err := json.Marshal(msg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.check.ClientFrame(b)
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if _, err := e.w.Write(append(b, '\n')); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		e.t.Errorf("writing to the bridge: %v", err)
	}
}

// request sends a request and returns the channel its answer arrives on.
func (e *editor) request(method string, params any) <-chan frame {
	return e.send1(method, params, false)
}

// send1 is request, its answer left unchecked when offSchema.
func (e *editor) send1(method string, params any, offSchema bool) <-chan frame {
	e.mu.Lock()
	e.next++
	id := e.next
	ch := make(chan frame, 1)
	e.wait[fmt.Sprint(id)] = ch
	if offSchema {
		if e.offSchema == nil {
			e.offSchema = map[string]bool{}
		}
		e.offSchema[fmt.Sprint(id)] = true
	}
	e.mu.Unlock()
	e.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// callOffSchema is call for a method outside ACP, whose answer the
// schema cannot check.
func (e *editor) callOffSchema(method string, params any) frame {
	e.t.Helper()
	return e.await(e.send1(method, params, true), method)
}

// call sends a request and waits for its answer.
func (e *editor) call(method string, params any) frame {
	e.t.Helper()
	return e.await(e.request(method, params), method)
}

func (e *editor) await(ch <-chan frame, what string) frame {
	e.t.Helper()
	select {
	case f := <-ch:
		return f
	case <-time.After(wait):
		e.t.Fatalf("no answer to %s within %v", what, wait)
		return frame{}
	}
}

func (e *editor) notify(method string, params any) {
	e.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// noteCount is how many notifications have arrived so far.
func (e *editor) noteCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.notes)
}

// notesSince returns the notifications received after the first n.
func (e *editor) notesSince(n int) []frame {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]frame(nil), e.notes[n:]...)
}

// waitNote waits for a notification after the first n that matches.
func (e *editor) waitNote(n int, match func(frame) bool) frame {
	e.t.Helper()
	deadline := time.After(wait)
	for {
		for _, f := range e.notesSince(n) {
			if match(f) {
				return f
			}
		}
		select {
		case <-e.noted:
		case <-deadline:
			e.t.Fatalf("no matching notification within %v; got %d", wait, len(e.notesSince(n)))
		}
	}
}

// open initializes (with the given client capabilities) and opens a session.
func (e *editor) open(caps any) string {
	e.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	if f := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}); f.Error != nil {
		e.t.Fatalf("initialize: %+v", f.Error)
	}
	f := e.call("session/new", map[string]any{"cwd": e.t.TempDir(), "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil || r.SessionID == "" {
		e.t.Fatalf("session/new: %s %+v", f.Result, f.Error)
	}
	return r.SessionID
}

func prompt(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// chunks returns the text of the agent_message_chunk updates among notes.
func chunks(notes []frame) []string {
	var out []string
	for _, f := range notes {
		var p struct {
			Update struct {
				Kind    string `json:"sessionUpdate"`
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		if f.Method == "session/update" && json.Unmarshal(f.Params, &p) == nil && p.Update.Kind == "agent_message_chunk" {
			out = append(out, p.Update.Content.Text)
		}
	}
	return out
}

func stopReason(t *testing.T, f frame) string {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("prompt failed: %d %s %s", f.Error.Code, f.Error.Message, f.Error.Data)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(f.Result, &r)
	return r.StopReason
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
