package claude

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// cli is a hand-written stand-in for the CLI: it answers initialize, and
// hands each later stdin line to onLine, which writes what the CLI would.
type cli struct {
	in  *bufio.Reader
	out io.Writer
}

func (c *cli) write(lines ...string) error {
	for _, l := range lines {
		if _, err := io.WriteString(c.out, l+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// next reads the next stdin line; io.EOF when stdin is closed.
func (c *cli) next() (gjson.Result, error) {
	line, err := c.in.ReadString('\n')
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.Parse(line), nil
}

// initialized reads initialize and answers it.
func (c *cli) initialized() error {
	req, err := c.next()
	if err != nil {
		return err
	}
	if req.Get("request.subtype").String() != "initialize" {
		return fmt.Errorf("first line is not initialize: %s", req.Raw)
	}
	return c.write(`{"type":"control_response","response":{"subtype":"success","request_id":"` +
		req.Get("request_id").String() + `","response":{"commands":[],"models":[]}}}`)
}

// launcher records the specs it was asked to start and plays one func per
// launch (the last one again when it runs out).
type launcher struct {
	mu    sync.Mutex
	specs []proc.Spec
	plays []func(c *cli) error
	fail  error
	// launched, if set, receives each spec (it must be buffered enough).
	launched chan proc.Spec
}

func (l *launcher) launch(_ context.Context, spec proc.Spec) (proc.Process, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.specs = append(l.specs, spec)
	if l.launched != nil {
		l.launched <- spec
	}
	if l.fail != nil {
		return nil, l.fail
	}
	play := l.plays[min(len(l.specs), len(l.plays))-1]
	return proc.InProcess("claude", func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
		err := play(&cli{in: bufio.NewReader(stdin), out: stdout})
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}), nil
}

func (l *launcher) args(i int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.specs[i].Args
}

func (l *launcher) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.specs)
}

// answerTurn reads one user message and answers it with text and a result.
func answerTurn(c *cli, text string) error {
	if _, err := c.next(); err != nil {
		return err
	}
	return c.write(
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"`+text+`"}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"stop_reason":"end_turn","result":"`+text+`"}`)
}

// drain reads stdin to EOF.
func drain(c *cli) error {
	for {
		if _, err := c.next(); err != nil {
			return err
		}
	}
}

func newTestAdapter(t *testing.T, l *launcher, opts Options) *Adapter {
	opts.Launch = l.launch
	opts.NewSessionID = func() string { return testSessionID }
	opts.Logger = testLogger(t)
	if opts.StopGrace == 0 {
		opts.StopGrace = 50 * time.Millisecond
	}
	if opts.ModelWait == 0 {
		// Some stand-ins never answer initialize; a test of the model
		// list sets its own wait.
		opts.ModelWait = -1
	}
	a := New(opts)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func prompt(text string) acp.PromptRequest {
	return acp.PromptRequest{SessionID: testSessionID, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}
}

func TestStartFailureFailsFirstPrompt(t *testing.T) {
	l := &launcher{fail: errors.New(`exec: "claude": executable file not found in $PATH`)}
	a := newTestAdapter(t, l, Options{})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, &acptest.Client{})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	_, err = s.Prompt(t.Context(), prompt("hi"))
	if err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Fatalf("Prompt error = %v, want the start failure", err)
	}
	if !errors.Is(err, acp.ErrInternal) {
		t.Errorf("Prompt error %v is not an internal error", err)
	}
	if _, err := s.Prompt(t.Context(), prompt("again")); err == nil {
		t.Fatal("second Prompt succeeded without a CLI")
	}
	if n := l.count(); n != 2 {
		t.Errorf("launched %d times, want a new try per prompt (2)", n)
	}
}

func TestInitializeFailureCarriesOutput(t *testing.T) {
	l := &launcher{plays: []func(*cli) error{func(c *cli) error {
		return errors.New("No conversation found with session ID: x")
	}}}
	a := newTestAdapter(t, l, Options{})
	s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, &acptest.Client{})
	_, err := s.Prompt(t.Context(), prompt("hi"))
	if err == nil || !strings.Contains(err.Error(), "No conversation found") {
		t.Fatalf("Prompt error = %v, want the CLI's failure", err)
	}
}

func TestDeathMidTurnThenResume(t *testing.T) {
	l := &launcher{plays: []func(*cli) error{
		func(c *cli) error {
			if err := c.initialized(); err != nil {
				return err
			}
			if _, err := c.next(); err != nil {
				return err
			}
			_ = c.write(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"partial"}}}`)
			return errors.New("exit status 143")
		},
		func(c *cli) error {
			if err := c.initialized(); err != nil {
				return err
			}
			if err := answerTurn(c, "back"); err != nil {
				return err
			}
			return drain(c)
		},
	}}
	var texts []string
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if c := n.Update.AgentMessageChunk; c != nil {
			texts = append(texts, c.Content.Text.Text)
		}
		return nil
	}}
	a := newTestAdapter(t, l, Options{})
	s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
	if _, err := s.Prompt(t.Context(), prompt("one")); err == nil || !strings.Contains(err.Error(), "exit status 143") {
		t.Fatalf("Prompt error = %v, want the exit", err)
	}
	stop, err := s.Prompt(t.Context(), prompt("two"))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after restart = %q, %v", stop, err)
	}
	if !slices.Contains(l.args(0), "--session-id="+testSessionID) {
		t.Errorf("first start args %q lack --session-id", l.args(0))
	}
	if !slices.Contains(l.args(1), "--resume="+testSessionID) {
		t.Errorf("restart args %q lack --resume", l.args(1))
	}
	if want := []string{"partial", "back"}; !slices.Equal(texts, want) {
		t.Errorf("texts = %q, want %q", texts, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// stubborn never ends a turn: it ignores interrupts until stdin closes.
func stubborn(c *cli) error {
	if err := c.initialized(); err != nil {
		return err
	}
	if _, err := c.next(); err != nil {
		return err
	}
	_ = c.write(`{"type":"system","subtype":"session_state_changed","state":"running"}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}}`)
	return drain(c)
}

func TestCancelStopsUnresponsiveCLI(t *testing.T) {
	l := &launcher{plays: []func(*cli) error{stubborn, func(c *cli) error {
		if err := c.initialized(); err != nil {
			return err
		}
		if err := answerTurn(c, "ok"); err != nil {
			return err
		}
		return drain(c)
	}}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var failed []acp.ToolCallID
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if n.Update.ToolCall != nil {
			cancel() // the turn is running: cancel it
		}
		if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == acp.ToolCallStatusFailed {
			failed = append(failed, u.ToolCallID)
		}
		return nil
	}}
	a := newTestAdapter(t, l, Options{CancelGrace: 20 * time.Millisecond})
	s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
	stop, err := s.Prompt(ctx, prompt("hi"))
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q, %v; want cancelled, nil", stop, err)
	}
	if !slices.Equal(failed, []acp.ToolCallID{"t1"}) {
		t.Errorf("failed tool calls = %q, want the abandoned t1", failed)
	}
	// The stopped process is replaced at the next prompt.
	if stop, err := s.Prompt(t.Context(), prompt("again")); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after the stop = %q, %v", stop, err)
	}
	if n := l.count(); n != 2 {
		t.Errorf("launched %d times, want 2", n)
	}
}

func TestCloseEndsTurn(t *testing.T) {
	l := &launcher{plays: []func(*cli) error{stubborn}}
	started := make(chan struct{})
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if n.Update.ToolCall != nil {
			close(started)
		}
		return nil
	}}
	a := newTestAdapter(t, l, Options{CancelGrace: time.Hour})
	s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := s.Prompt(t.Context(), prompt("hi"))
		done <- result{stop, err}
	}()
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt during Close = %q, %v; want cancelled", r.stop, r.err)
	}
	if _, err := s.Prompt(t.Context(), prompt("after")); !errors.Is(err, acp.ErrInvalidRequest) {
		t.Errorf("Prompt after Close = %v, want invalid request", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSpec(t *testing.T) {
	l := &launcher{plays: []func(*cli) error{func(c *cli) error { return drain(c) }}, launched: make(chan proc.Spec, 1)}
	a := newTestAdapter(t, l, Options{
		Path: "/opt/claude", PermissionMode: "plan", Model: "sonnet", Effort: "high",
		ExtraArgs: []string{"--max-turns", "3"}, Env: []string{"A=b"},
	})
	servers := []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"-r"},
		Env: []acp.EnvVariable{{Name: "K", Value: "v"}}}}}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/src/proj", McpServers: servers, AdditionalDirectories: []string{"/lib"}}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec := <-l.launched
	want := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--include-partial-messages", "--permission-prompt-tool", "stdio", "--session-id=" + testSessionID,
		"--permission-mode", "plan", "--model", "sonnet", "--add-dir", "/lib",
		"--mcp-config", `{"mcpServers":{"fs":{"args":["-r"],"command":"mcp-fs","env":{"K":"v"},"type":"stdio"}}}`,
		"--max-turns", "3", "--effort", "high"}
	if !slices.Equal(spec.Args, want) {
		t.Errorf("args\n got %q\nwant %q", spec.Args, want)
	}
	if spec.Path != "/opt/claude" || spec.Dir != "/src/proj" {
		t.Errorf("path %q dir %q", spec.Path, spec.Dir)
	}
	if !slices.Contains(spec.Env, "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1") || !slices.Contains(spec.Env, "A=b") {
		t.Errorf("env %q", spec.Env)
	}
	st := s.State()
	if st.Modes.CurrentModeID != "plan" || len(st.ConfigOptions) != 3 || st.ConfigOptions[2].Select.CurrentValue != "high" {
		t.Errorf("state = %+v", st)
	}
}
