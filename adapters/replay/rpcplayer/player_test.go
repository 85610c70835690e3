package rpcplayer_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/replay/rpcplayer"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// acpScript is a native-ACP session: a turn whose shell command the
// recorded editor allowed, then a text turn.
const acpScript = `
< {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
> {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}
< {"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}
> {"jsonrpc":"2.0","id":2,"result":{"sessionId":"rec-sess"}}
< {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"rec-sess","prompt":[]}}
> {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"echo"}}}
> {"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"rec-sess","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"yes","kind":"allow_once","name":"Allow"},{"optionId":"yes-all","kind":"allow_always","name":"Always"},{"optionId":"no","kind":"reject_once","name":"Reject"}]}}
< {"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}
> {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}
> {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}
< {"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"rec-sess","prompt":[]}}
> {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"second"}}}}
> {"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}
`

// host is the bridge's side of a player under test.
type host struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func start(t *testing.T, script string, opts rpcplayer.Options) *host {
	t.Helper()
	steps, err := recording.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &host{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := rpcplayer.Play(t.Context(), func() (recording.StepReader, error) { return recording.SliceSteps(steps), nil }, inR, outW, opts)
		outW.Close()
		h.done <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return h
}

func (h *host) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("writing %s: %v", line, err)
	}
}

// recv reads the next line and compares it with want, semantically. A
// player that writes nothing for 10s fails the test instead of hanging it.
func (h *host) recv(want string) {
	h.t.Helper()
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := h.out.ReadString('\n')
		got <- read{line, err}
	}()
	var r read
	select {
	case r = <-got:
	case <-time.After(10 * time.Second):
		h.t.Fatalf("nothing written within 10s, want %s", want)
	}
	line, err := r.line, r.err
	if err != nil {
		h.t.Fatalf("reading, want %s: %v", want, err)
	}
	var g, w any
	if err := json.Unmarshal([]byte(line), &g); err != nil {
		h.t.Fatalf("player wrote %q: %v", line, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		h.t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		h.t.Fatalf("player wrote (-want +got)\n- %s\n+ %s", want, strings.TrimSpace(line))
	}
}

// end closes stdin and wants Play to return nil.
func (h *host) end() {
	h.t.Helper()
	h.in.Close()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatalf("Play = %v, want nil at stdin EOF", err)
		}
	case <-time.After(10 * time.Second):
		h.t.Fatal("Play did not return after stdin EOF")
	}
}

func (h *host) open() {
	h.send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":1}}`)
	h.recv(`{"jsonrpc":"2.0","id":10,"result":{"protocolVersion":1}}`)
	h.send(`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"/x","mcpServers":[]}}`)
	h.recv(`{"jsonrpc":"2.0","id":11,"result":{"sessionId":"live"}}`)
}

func TestPlaysWithLiveIDs(t *testing.T) {
	h := start(t, acpScript, rpcplayer.Options{SessionID: "live", RecordedSessionID: "rec-sess"})
	h.open()
	h.send(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"live","prompt":[]}}`)
	h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"live","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"echo"}}}`)
	h.recv(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"live","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"yes","kind":"allow_once","name":"Allow"},{"optionId":"yes-all","kind":"allow_always","name":"Always"},{"optionId":"no","kind":"reject_once","name":"Reject"}]}}`)
	// Allow always is the recorded allow once, as far as a recording goes.
	h.send(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"yes-all"}}}`)
	h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"live","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`)
	h.recv(`{"jsonrpc":"2.0","id":12,"result":{"stopReason":"end_turn"}}`)
	h.send(`{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"live","prompt":[]}}`)
	h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"live","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"second"}}}}`)
	h.recv(`{"jsonrpc":"2.0","id":13,"result":{"stopReason":"end_turn"}}`)
	h.end()
}

func TestEditorAnswersOtherwise(t *testing.T) {
	tests := []struct {
		name, answer string
		want         []string
	}{
		{"reject", `{"outcome":{"outcome":"selected","optionId":"no"}}`, []string{
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed","content":[{"type":"content","content":{"type":"text","text":"This replay cannot follow the editor's choice: the recording allowed this tool call and went on from there, so the turn ends here."}}]}}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"This replay cannot follow the editor's choice: the recording allowed this tool call and went on from there, so the turn ends here."}}}}`,
			`{"jsonrpc":"2.0","id":12,"result":{"stopReason":"end_turn"}}`,
		}},
		{"cancelled", `{"outcome":{"outcome":"cancelled"}}`, []string{
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"failed"}}}`,
			`{"jsonrpc":"2.0","id":12,"result":{"stopReason":"cancelled"}}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := start(t, acpScript, rpcplayer.Options{})
			h.send(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"rec-sess","prompt":[]}}`)
			h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"echo"}}}`)
			if _, err := h.out.ReadString('\n'); err != nil { // the question
				t.Fatal(err)
			}
			h.send(`{"jsonrpc":"2.0","id":0,"result":` + tt.answer + `}`)
			for _, w := range tt.want {
				h.recv(w)
			}
			// The rest of the recorded turn is skipped: the next prompt
			// plays the next turn.
			h.send(`{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"rec-sess","prompt":[]}}`)
			h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"second"}}}}`)
			h.recv(`{"jsonrpc":"2.0","id":13,"result":{"stopReason":"end_turn"}}`)
			h.end()
		})
	}
}

func TestUnrecordedMessages(t *testing.T) {
	h := start(t, acpScript, rpcplayer.Options{})
	h.open2()
	// A request the recording does not have gets an error naming it; a
	// notification is ignored.
	h.send(`{"jsonrpc":"2.0","method":"$/ping"}`)
	h.send(`{"jsonrpc":"2.0","id":"x","method":"session/set_mode","params":{}}`)
	h.recv(`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"this recording has no session/set_mode request"}}`)
	// A cancel between turns has nothing to stop.
	h.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"rec-sess"}}`)
	// A cancel during a turn whose recording has none ends it cancelled.
	h.send(`{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"rec-sess","prompt":[]}}`)
	h.recv(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-sess","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"echo"}}}`)
	if _, err := h.out.ReadString('\n'); err != nil { // the question
		t.Fatal(err)
	}
	h.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"rec-sess"}}`)
	h.recv(`{"jsonrpc":"2.0","id":13,"result":{"stopReason":"cancelled"}}`)
	h.end()
}

// open2 is open for a player without a live session id.
func (h *host) open2() {
	h.send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":1}}`)
	h.recv(`{"jsonrpc":"2.0","id":10,"result":{"protocolVersion":1}}`)
	h.send(`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"/x","mcpServers":[]}}`)
	h.recv(`{"jsonrpc":"2.0","id":11,"result":{"sessionId":"rec-sess"}}`)
}

// codexScript is an app-server turn whose command the recorded editor
// accepted.
const codexScript = `
< {"id":1,"method":"turn/start","params":{"threadId":"th","input":[]}}
> {"id":1,"result":{"turn":{"id":"tu","items":[],"status":"inProgress"}}}
> {"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th","turnId":"tu","itemId":"call_1","command":"touch f"}}
< {"id":0,"result":{"decision":"accept"}}
> {"method":"item/completed","params":{"threadId":"th","turnId":"tu","item":{"type":"commandExecution","id":"call_1","status":"completed"}}}
> {"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","items":[],"status":"completed"}}}
`

func TestCodexDeclinedWhereAccepted(t *testing.T) {
	h := start(t, codexScript, rpcplayer.Options{Protocol: rpcplayer.Codex{}})
	h.send(`{"id":7,"method":"turn/start","params":{"threadId":"th","input":[]}}`)
	h.recv(`{"id":7,"result":{"turn":{"id":"tu","items":[],"status":"inProgress"}}}`)
	h.recv(`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th","turnId":"tu","itemId":"call_1","command":"touch f"}}`)
	h.send(`{"id":0,"result":{"decision":"decline"}}`)
	text := "This replay cannot follow the editor's choice: the recording allowed this tool call and went on from there, so the turn ends here."
	h.recv(`{"method":"item/completed","params":{"threadId":"th","turnId":"tu","item":{"type":"commandExecution","id":"call_1","status":"failed","command":"touch f","aggregatedOutput":"` + text + `"}}}`)
	h.recv(`{"method":"item/agentMessage/delta","params":{"threadId":"th","turnId":"tu","itemId":"call_1-replay","delta":"` + text + `"}}`)
	h.recv(`{"method":"item/completed","params":{"threadId":"th","turnId":"tu","item":{"type":"agentMessage","id":"call_1-replay","text":"` + text + `"}}}`)
	h.recv(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","items":[],"status":"completed","error":null}}}`)
	h.end()
}

func TestCodexInterruptWhereNoneRecorded(t *testing.T) {
	h := start(t, codexScript, rpcplayer.Options{Protocol: rpcplayer.Codex{}})
	h.send(`{"id":7,"method":"turn/start","params":{"threadId":"th","input":[]}}`)
	h.recv(`{"id":7,"result":{"turn":{"id":"tu","items":[],"status":"inProgress"}}}`)
	h.recv(`{"id":0,"method":"item/commandExecution/requestApproval","params":{"threadId":"th","turnId":"tu","itemId":"call_1","command":"touch f"}}`)
	h.send(`{"id":8,"method":"turn/interrupt","params":{"threadId":"th","turnId":"tu"}}`)
	h.recv(`{"id":8,"result":{}}`)
	h.recv(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","items":[],"status":"interrupted","error":null}}}`)
	h.end()
}

func TestContextEndsPlay(t *testing.T) {
	steps, _ := recording.ParseScript([]byte(acpScript))
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() {
		done <- rpcplayer.Play(ctx, func() (recording.StepReader, error) { return recording.SliceSteps(steps), nil }, inR, io.Discard, rpcplayer.Options{})
	}()
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Play = %v, want context.Canceled", err)
	}
}

// TestRequestsInAnotherOrder: adapters/codex asks for the model list as it
// starts, racing thread/start; a request the recording has later is taken
// where it stands, and both are answered, with their live ids.
func TestRequestsInAnotherOrder(t *testing.T) {
	h := start(t, `
< {"id":1,"method":"thread/start","params":{}}
> {"id":1,"result":{"thread":{"id":"th"}}}
> {"method":"thread/started","params":{"thread":{"id":"th"}}}
< {"id":2,"method":"model/list","params":{}}
> {"id":2,"result":{"data":[]}}
`, rpcplayer.Options{Protocol: rpcplayer.Codex{}})
	h.send(`{"id":8,"method":"model/list","params":{}}`)
	h.send(`{"id":9,"method":"thread/start","params":{}}`)
	h.recv(`{"id":9,"result":{"thread":{"id":"th"}}}`)
	h.recv(`{"method":"thread/started","params":{"thread":{"id":"th"}}}`)
	h.recv(`{"id":8,"result":{"data":[]}}`)
	h.end()
}
