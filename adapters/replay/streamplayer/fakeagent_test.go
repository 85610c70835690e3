package streamplayer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// host drives Run over io.Pipe the way the bridge's adapter does.
type host struct {
	t    *testing.T
	in   *io.PipeWriter // Run's stdin
	out  *bufio.Reader  // Run's stdout
	errc chan error     // Run's result
	log  *strings.Builder
}

func startHost(t *testing.T, ctx context.Context, script string, opts Options) *host {
	t.Helper()
	steps, err := recording.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &host{t: t, in: inW, out: bufio.NewReader(outR), errc: make(chan error, 1), log: &strings.Builder{}}
	if opts.Logger == nil {
		opts.Logger = h.log
	}
	go func() {
		// Play with readers that reuse their line buffer, as file readers
		// do, so that a step kept past the next read shows up as garbage.
		err := Play(ctx, func() (recording.StepReader, error) { return &reusing{steps: steps}, nil }, inR, outW, opts)
		outW.Close()
		h.errc <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-h.errc
		if t.Failed() {
			t.Logf("fakeagent log:\n%s", h.log)
		}
	})
	return h
}

// reusing is a StepReader that hands out every line in one buffer, which
// it scribbles over before the next step.
type reusing struct {
	steps []recording.Step
	buf   []byte
}

func (r *reusing) Next() (recording.Step, error) {
	for i := range r.buf {
		r.buf[i] = '#'
	}
	if len(r.steps) == 0 {
		return recording.Step{}, io.EOF
	}
	st := r.steps[0]
	r.steps = r.steps[1:]
	r.buf = append(r.buf[:0], st.Line...)
	return recording.Step{Dir: st.Dir, Line: r.buf}, nil
}

func (r *reusing) Close() error { return nil }

func (h *host) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("writing %s: %v", line, err)
	}
}

// recv reads one line and compares it with want as JSON.
func (h *host) recv(want string) {
	h.t.Helper()
	line, err := h.out.ReadString('\n')
	if err != nil {
		h.t.Fatalf("reading stdout (want %s): %v", want, err)
	}
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		h.t.Fatalf("line %q is not one newline-terminated line", line)
	}
	var got, exp any
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		h.t.Fatalf("stdout line %q: %v", line, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		h.t.Fatalf("bad want %q: %v", want, err)
	}
	if !reflect.DeepEqual(got, exp) {
		h.t.Fatalf("stdout line\n got %s\nwant %s", strings.TrimSpace(line), want)
	}
}

// end closes stdin and checks that Run returns want and stdout ends.
func (h *host) end(want error) {
	h.t.Helper()
	h.in.Close()
	if line, err := h.out.ReadString('\n'); err != io.EOF {
		h.t.Fatalf("after stdin EOF: read %q, %v; want EOF", line, err)
	}
	if err := <-h.errc; !errors.Is(err, want) {
		h.t.Fatalf("Run = %v, want %v", err, want)
	}
	h.errc <- nil // for Cleanup
}

const (
	initReq  = `{"type":"control_request","request_id":"req_init","request":{"subtype":"initialize","hooks":null}}`
	initResp = `{"type":"control_response","response":{"subtype":"success","request_id":"req_init","response":{"commands":[]}}}`
	userMsg  = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"recorded prompt"}]},"parent_tool_use_id":null,"session_id":""}`
)

func TestPlainTurn(t *testing.T) {
	script := `
# handshake
< ` + initReq + `
> ` + initResp + `
< ` + userMsg + `
> {"type":"system","subtype":"init","session_id":"rec-sid","transcript":"/x/rec-sid.jsonl"}
> {"type":"assistant","message":{"content":[{"type":"text","text":"hello"}]},"session_id":"rec-sid"}
> {"type":"result","subtype":"success","is_error":false,"result":"hello","session_id":"rec-sid"}
`
	h := startHost(t, t.Context(), script, Options{SessionID: "live-sid", RecordedSessionID: "rec-sid"})
	h.send(`{"type":"control_request","request_id":"c1","request":{"subtype":"initialize","hooks":{}}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"c1","response":{"commands":[]}}}`)
	h.send(`{"type":"user","message":{"role":"user","content":"a different prompt"},"session_id":""}`)
	h.recv(`{"type":"system","subtype":"init","session_id":"live-sid","transcript":"/x/live-sid.jsonl"}`)
	h.recv(`{"type":"assistant","message":{"content":[{"type":"text","text":"hello"}]},"session_id":"live-sid"}`)
	h.recv(`{"type":"result","subtype":"success","is_error":false,"result":"hello","session_id":"live-sid"}`)
	h.end(nil)
}

func TestPermissionRoundTrip(t *testing.T) {
	script := `
< ` + userMsg + `
> {"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash"}]}}
> {"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","tool_use_id":"toolu_1"}}
< {"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow","updatedInput":{}}}}
> {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}
> {"type":"result","subtype":"success","is_error":false}
< {"type":"control_request","request_id":"rec-mode","request":{"subtype":"set_permission_mode","mode":"plan"}}
> {"type":"control_response","response":{"subtype":"success","request_id":"rec-mode","response":{"mode":"plan"}}}
> {"type":"system","subtype":"status","status":null,"permissionMode":"plan"}
`
	h := startHost(t, t.Context(), script, Options{})
	h.send(`{"type":"user","message":{"role":"user","content":"go"}}`)
	h.recv(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash"}]}}`)
	h.recv(`{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","tool_use_id":"toolu_1"}}`)
	// Neither an answer to another request nor one of another subtype
	// matches; both are ignored.
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"nope","response":{}}}`)
	h.send(`{"type":"control_response","response":{"subtype":"error","request_id":"perm-1","error":"x"}}`)
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"deny","message":"no"}}}`)
	h.recv(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`)
	h.recv(`{"type":"result","subtype":"success","is_error":false}`)
	// The host's own id replaces the recorded one in the answer.
	h.send(`{"type":"control_request","request_id":42,"request":{"subtype":"set_permission_mode","mode":"plan"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":42,"response":{"mode":"plan"}}}`)
	h.recv(`{"type":"system","subtype":"status","status":null,"permissionMode":"plan"}`)
	h.end(nil)
	if strings.Contains(h.log.String(), "answering") {
		t.Errorf("an expected request got a synthesized answer:\n%s", h.log)
	}
}

// A group of consecutive '<' steps may be satisfied in any order.
func TestAnswersOutOfOrder(t *testing.T) {
	script := `
> {"type":"control_request","request_id":"a","request":{"subtype":"hook_callback"}}
> {"type":"control_request","request_id":"b","request":{"subtype":"hook_callback"}}
< {"type":"control_response","response":{"subtype":"success","request_id":"a","response":{}}}
< {"type":"control_response","response":{"subtype":"success","request_id":"b","response":{}}}
> {"type":"system","subtype":"done"}
`
	h := startHost(t, t.Context(), script, Options{})
	h.recv(`{"type":"control_request","request_id":"a","request":{"subtype":"hook_callback"}}`)
	h.recv(`{"type":"control_request","request_id":"b","request":{"subtype":"hook_callback"}}`)
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"b","response":{}}}`)
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"a","response":{}}}`)
	h.recv(`{"type":"system","subtype":"done"}`)
	h.end(nil)
}

const interruptScript = `
< ` + userMsg + `
> {"type":"system","subtype":"init","session_id":"rec"}
> {"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash"}]},"session_id":"rec"}
> {"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}
< {"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow"}}}
> {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1"}]},"session_id":"rec"}
> {"type":"result","subtype":"success","is_error":false,"session_id":"rec"}
< ` + userMsg + `
> {"type":"assistant","message":{"content":[{"type":"text","text":"second turn"}]},"session_id":"rec"}
> {"type":"result","subtype":"success","is_error":false,"session_id":"rec"}
`

func TestInterruptWhilePermissionPending(t *testing.T) {
	h := startHost(t, t.Context(), interruptScript, Options{SessionID: "live", RecordedSessionID: "rec"})
	h.send(userMsg)
	h.recv(`{"type":"system","subtype":"init","session_id":"live"}`)
	h.recv(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash"}]},"session_id":"live"}`)
	h.recv(`{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}`)
	h.send(`{"type":"control_request","request_id":"int-1","request":{"subtype":"interrupt"}}`)
	h.recv(`{"type":"control_cancel_request","request_id":"perm-1"}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"int-1","response":{"still_queued":[]}}}`)
	h.recv(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"parent_tool_use_id":null,"session_id":"live"}`)
	h.recv(`{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":0,"num_turns":1,"stop_reason":"tool_use","terminal_reason":"aborted_tools","errors":["interrupted by the host"],"permission_denials":[],"session_id":"live"}`)
	// A late answer to the cancelled request is harmless; the next turn
	// plays from the next user step.
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{"behavior":"allow"}}}`)
	h.send(userMsg)
	h.recv(`{"type":"assistant","message":{"content":[{"type":"text","text":"second turn"}]},"session_id":"live"}`)
	h.recv(`{"type":"result","subtype":"success","is_error":false,"session_id":"live"}`)
	h.end(nil)
}

// With Pace the interrupt lands while text streams; synctest makes the
// timing exact.
func TestInterruptWhileStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const pace = time.Second
		script := `
< ` + userMsg + `
> {"type":"assistant","message":{"content":[{"type":"text","text":"w0"}]}}
> {"type":"assistant","message":{"content":[{"type":"text","text":"w1"}]}}
> {"type":"assistant","message":{"content":[{"type":"text","text":"w2"}]}}
> {"type":"result","subtype":"success","is_error":false}
< ` + userMsg + `
> {"type":"result","subtype":"success","is_error":false,"result":"2"}
`
		h := startHost(t, t.Context(), script, Options{Pace: pace, RecordedSessionID: "rec"})
		start := time.Now()
		h.send(userMsg)
		h.recv(`{"type":"assistant","message":{"content":[{"type":"text","text":"w0"}]}}`)
		h.send(`{"type":"control_request","request_id":"i","request":{"subtype":"interrupt"}}`)
		h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"i","response":{"still_queued":[]}}}`)
		h.recv(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]},"parent_tool_use_id":null,"session_id":"rec"}`)
		h.recv(`{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":0,"num_turns":1,"stop_reason":null,"terminal_reason":"aborted_streaming","errors":["interrupted by the host"],"permission_denials":[],"session_id":"rec"}`)
		if d := time.Since(start); d != 0 {
			t.Errorf("the interrupt was answered after %v, want at once", d)
		}
		// An interrupt between turns gets only its response.
		h.send(`{"type":"control_request","request_id":"j","request":{"subtype":"interrupt"}}`)
		h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"j","response":{"still_queued":[]}}}`)
		h.send(userMsg)
		h.recv(`{"type":"result","subtype":"success","is_error":false,"result":"2"}`)
		if d := time.Since(start); d != pace {
			t.Errorf("second turn started after %v, want %v (one paced line)", d, pace)
		}
		h.end(nil)
	})
}

// A request sent while lines are still being written is matched to the
// step ahead instead of being answered generically.
func TestEarlyRequestMatchesAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script := `
< ` + userMsg + `
> {"type":"assistant","n":1}
> {"type":"assistant","n":2}
< {"type":"control_request","request_id":"rec-m","request":{"subtype":"set_model","model":"x"}}
> {"type":"control_response","response":{"subtype":"success","request_id":"rec-m","response":{"model":"x-1"}}}
`
		h := startHost(t, t.Context(), script, Options{Pace: time.Second})
		h.send(userMsg)
		h.recv(`{"type":"assistant","n":1}`)
		h.send(`{"type":"control_request","request_id":"m","request":{"subtype":"set_model","model":"x"}}`)
		synctest.Wait() // the request is handled during the pause after line 1
		h.recv(`{"type":"assistant","n":2}`)
		h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"m","response":{"model":"x-1"}}}`)
		h.end(nil)
		if strings.Contains(h.log.String(), "unexpected") {
			t.Errorf("the early request was treated as unexpected:\n%s", h.log)
		}
	})
}

func TestUnexpectedLines(t *testing.T) {
	script := `
< ` + userMsg + `
> {"type":"result","subtype":"success","n":1}
< ` + userMsg + `
> {"type":"result","subtype":"success","n":2}
`
	h := startHost(t, t.Context(), script, Options{})
	h.send(`{"type":"control_request","request_id":"x1","request":{"subtype":"mcp_status"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"x1","response":{}}}`)
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"nobody","response":{}}}`)
	h.send(`{"type":"keep_alive"}`)
	h.send(`not json at all`)
	h.send(`{"type":"control_request","request":{"subtype":"get_settings"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":null,"response":{}}}`)
	// Two prompts back to back: the second is queued for the next turn.
	h.send(userMsg)
	h.send(userMsg)
	h.recv(`{"type":"result","subtype":"success","n":1}`)
	h.recv(`{"type":"result","subtype":"success","n":2}`)
	h.end(nil)
}

func TestScriptExhausted(t *testing.T) {
	script := "< " + userMsg + "\n> {\"type\":\"result\",\"subtype\":\"success\"}\n"
	h := startHost(t, t.Context(), script, Options{SessionID: "s"})
	h.send(userMsg)
	h.recv(`{"type":"result","subtype":"success"}`)
	for i := 1; i <= 2; i++ {
		h.send(userMsg)
		h.recv(fmt.Sprintf(`{"type":"assistant","message":{"id":"msg_replay_end_%d","type":"message","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"This recording has no more turns."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}},"parent_tool_use_id":null,"session_id":"s"}`, i))
		h.recv(`{"type":"result","subtype":"success","is_error":false,"duration_ms":0,"duration_api_ms":0,"num_turns":1,"result":"This recording has no more turns.","stop_reason":"end_turn","terminal_reason":"completed","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"session_id":"s"}`)
	}
	h.send(`{"type":"control_request","request_id":"i","request":{"subtype":"interrupt"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"i","response":{"still_queued":[]}}}`)
	h.end(nil)
}

func TestEOF(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		h := startHost(t, t.Context(), "< "+userMsg+"\n> {\"type\":\"result\"}\n", Options{})
		h.end(nil)
	})
	t.Run("mid turn finishes the turn", func(t *testing.T) {
		script := "< " + userMsg + "\n> {\"n\":1}\n> {\"n\":2}\n< " + userMsg + "\n> {\"n\":3}\n"
		h := startHost(t, t.Context(), script, Options{})
		h.send(userMsg)
		h.in.Close()
		h.recv(`{"n":1}`)
		h.recv(`{"n":2}`)
		h.end(nil)
	})
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	h := startHost(t, ctx, "< "+userMsg+"\n> {\"type\":\"result\"}\n", Options{})
	h.send(`{"type":"control_request","request_id":"x","request":{"subtype":"mcp_status"}}`)
	h.recv(`{"type":"control_response","response":{"subtype":"success","request_id":"x","response":{}}}`)
	cancel()
	if err := <-h.errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	h.errc <- nil
	// Run closed its stdin, so the host sees a dead peer rather than a hang.
	if _, err := io.WriteString(h.in, userMsg+"\n"); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("writing stdin after cancel: %v, want io.ErrClosedPipe", err)
	}
}

func TestStdoutFails(t *testing.T) {
	steps, _ := recording.ParseScript([]byte("> {\"n\":1}\n"))
	err := Run(t.Context(), steps, strings.NewReader(""), errWriter{}, Options{})
	if !errors.Is(err, io.ErrClosedPipe) || !strings.Contains(err.Error(), "writing stdout") {
		t.Errorf("Run with a failing stdout = %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestBadScript(t *testing.T) {
	for _, steps := range [][]recording.Step{
		{{Dir: recording.ToAgent, Line: []byte(`[1]`)}},
		{{Dir: 'x', Line: []byte(`{}`)}},
	} {
		if err := Run(t.Context(), steps, strings.NewReader(""), io.Discard, Options{}); err == nil {
			t.Errorf("Run(%q) succeeded", steps)
		}
	}
}

func TestTopType(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"result"}`, "result"},
		{` { "uuid" : "x" , "n":[1,{"type":"no"}], "s":"a\"type\":\"no", "b":true, "type" : "user" }`, "user"},
		{`{"message":{"type":"no"},"type":"assistant"}`, "assistant"},
		{`{"type":1}`, ""},
		{`{"a":1}`, ""},
		{`[]`, ""},
		{`{"a":"unterminated`, ""},
	}
	for _, tt := range tests {
		if got := string(topType([]byte(tt.in))); got != tt.want {
			t.Errorf("topType(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// failing is a StepReader whose script breaks after its steps.
type failing struct {
	steps []recording.Step
	err   error
}

func (f *failing) Next() (recording.Step, error) {
	if len(f.steps) == 0 {
		return recording.Step{}, f.err
	}
	st := f.steps[0]
	f.steps = f.steps[1:]
	return st, nil
}

func (f *failing) Close() error { return nil }

// An error opening or reading the script ends Play with that error, after
// the lines before it were played.
func TestPlayScriptErrors(t *testing.T) {
	broken := errors.New("disk on fire")
	if err := Play(t.Context(), func() (recording.StepReader, error) { return nil, broken }, strings.NewReader(""), io.Discard, Options{}); !errors.Is(err, broken) {
		t.Errorf("Play with a failing open = %v", err)
	}
	steps, _ := recording.ParseScript([]byte("> {\"n\":1}\n> {\"n\":2}\n"))
	var out strings.Builder
	err := Play(t.Context(), func() (recording.StepReader, error) { return &failing{steps: steps, err: broken}, nil },
		strings.NewReader(""), &out, Options{})
	if !errors.Is(err, broken) || out.String() != "{\"n\":1}\n{\"n\":2}\n" {
		t.Errorf("Play with a script that breaks = %v after writing %q", err, out.String())
	}
}

// PlayFile streams the script from the file.
func TestPlayFile(t *testing.T) {
	path := t.TempDir() + "/f.txtar"
	data := "-- meta --\nsession: rec\n-- agent --\n< " + userMsg + "\n> {\"type\":\"result\",\"session_id\":\"rec\"}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := PlayFile(t.Context(), path, strings.NewReader(userMsg+"\n"), &out, Options{SessionID: "live"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"type\":\"result\",\"session_id\":\"live\"}\n"; out.String() != want {
		t.Errorf("PlayFile wrote %q, want %q", out.String(), want)
	}
	if err := os.WriteFile(path, []byte("-- meta --\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := PlayFile(t.Context(), path, strings.NewReader(""), io.Discard, Options{}); err == nil || !strings.Contains(err.Error(), "no agent section") {
		t.Errorf("PlayFile without a script = %v", err)
	}
}
