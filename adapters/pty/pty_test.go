package pty

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/faketui"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/leakcheck"
)

// The test binary is also the fake TUI: with ACPBRIDGE_FAKETUI set it runs
// the TUI on its terminal instead of the tests.
func TestMain(m *testing.M) {
	// The reporter an agent's hook runs is this executable too (as it is
	// acpbridge itself in production).
	if len(os.Args) > 2 && os.Args[1] == NotifyCommand {
		if err := Notify(os.Args[2], os.Args[3:], os.Stdin); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("ACPBRIDGE_FAKETUI") != "" {
		os.Exit(faketui.Main(os.Args[1:]))
	}
	os.Exit(leakcheck.Main(m))
}

// client is the editor: it collects agent text and answers permission
// requests with answer.
type client struct {
	acp.Client
	answer func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome

	mu     sync.Mutex
	chunks []string                       // guarded by mu
	asked  []acp.RequestPermissionRequest // guarded by mu
	events []string                       // guarded by mu; what reached the editor, in order
	first  chan struct{}                  // closed at the first chunk
	once   sync.Once
}

var _ acp.Client = (*client)(nil)

func newClient(answer func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome) *client {
	return &client{answer: answer, first: make(chan struct{})}
}

func (c *client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := n.Update; {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		c.chunks = append(c.chunks, u.AgentMessageChunk.Content.Text.Text)
		c.events = append(c.events, "text "+u.AgentMessageChunk.Content.Text.Text)
		c.once.Do(func() { close(c.first) })
	case u.ToolCall != nil:
		c.events = append(c.events, fmt.Sprintf("tool_call %s %s %q", u.ToolCall.ToolCallID, u.ToolCall.Status, u.ToolCall.Title))
	case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
		c.events = append(c.events, fmt.Sprintf("tool_call_update %s %s", u.ToolCallUpdate.ToolCallID, *u.ToolCallUpdate.Status))
	}
	return nil
}

func (c *client) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	c.events = append(c.events, "request_permission "+string(req.ToolCall.ToolCallID))
	c.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: c.answer(req)}, nil
}

func (c *client) Capabilities() acp.ClientCapabilities { return acp.ClientCapabilities{} }

func (c *client) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.chunks, "")
}

func (c *client) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chunks, c.events = nil, nil
}

// order is what reached the editor, in order, with the texts sent in a row
// joined into one.
func (c *client) order() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.events {
		if n := len(out); n > 0 && strings.HasPrefix(e, "text ") && strings.HasPrefix(out[n-1], "text ") {
			out[n-1] += strings.TrimPrefix(e, "text ")
			continue
		}
		out = append(out, e)
	}
	return out
}

// choose answers with the option whose label is label.
func choose(label string) func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
	return func(req acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		for _, o := range req.Options {
			if o.Name == label {
				return acp.PermissionSelected(o.OptionID)
			}
		}
		return acp.PermissionCancelled()
	}
}

func requireUnix(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		t.Skip("no pseudo-terminals on this OS")
	}
}

// fakeSession starts the fake TUI with args under profile p (the built-in
// faketui profile when nil) and returns its session, closed at the end.
func fakeSession(t *testing.T, p *Profile, c acp.Client, args ...string) acp.Session {
	t.Helper()
	requireUnix(t)
	return benchSession(t, p, c, args...)
}

func benchSession(t testing.TB, p *Profile, c acp.Client, args ...string) acp.Session {
	t.Helper()
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		t.Skip("no pseudo-terminals on this OS")
	}
	if p == nil {
		var err error
		if p, err = FindProfile("faketui", ""); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(p, Options{Command: append([]string{exe}, args...), Name: "faketui",
		Env: []string{"ACPBRIDGE_FAKETUI=1"}, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		StopGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	return s
}

func prompt(t *testing.T, ctx context.Context, s acp.Session, text string) (acp.StopReason, error) {
	t.Helper()
	return s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// deadline bounds a turn against a real process; generous, for loaded
// machines.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestTextTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"main screen", nil},
		{"alternate screen", []string{"-alt"}},
		{"slow start and trust dialog", []string{"-slow-start", "300ms", "-trust"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(nil)
			s := fakeSession(t, nil, c, tt.args...)
			for _, p := range []string{"hello there", "hello there"} {
				c.reset()
				stop, err := prompt(t, deadline(t), s, p)
				if err != nil || stop != acp.StopReasonEndTurn {
					t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
				}
				if got, want := c.text(), "Hello from the fake TUI. You said: hello there"; got != want {
					t.Errorf("reply = %q, want %q", got, want)
				}
			}
		})
	}
}

func TestMultiLinePromptIsPasted(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c)
	stop, err := prompt(t, deadline(t), s, "first line\nsecond line")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	// The TUI saw one prompt: it answers once, with both lines.
	if got, want := c.text(), "Hello from the fake TUI. You said: first line second line"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

func TestYesNoDialog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		choice, want string
	}{
		{"Yes", "I will run a command.\nCommand ran: 3 files."},
		{"No", "I will run a command.\nCommand skipped as you asked."},
	}
	for _, tt := range tests {
		t.Run(tt.choice, func(t *testing.T) {
			c := newClient(choose(tt.choice))
			s := fakeSession(t, nil, c)
			stop, err := prompt(t, deadline(t), s, "please run it")
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			if got := c.text(); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
			if len(c.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(c.asked))
			}
			req := c.asked[0]
			if got := *req.ToolCall.Title; got != "Run command: ls -la" {
				t.Errorf("title = %q", got)
			}
			want := []acp.PermissionOption{{OptionID: "1", Name: "Yes", Kind: "allow_once"}, {OptionID: "2", Name: "No", Kind: "reject_once"}}
			if !equalOptions(req.Options, want) {
				t.Errorf("options = %+v, want %+v", req.Options, want)
			}
		})
	}
}

// The text a TUI draws before its dialog reaches the editor before the
// permission request, and the dialog's tool call is announced (pending)
// before it is asked about, then updated by the answer and the turn's end,
// as the other adapters do: an editor shows a request for a tool call it
// knows, below the text that led to it.
func TestDialogOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prompt, choice string
		want           []string
	}{
		{"please run it", "Yes", []string{
			`text I will run a command.`,
			`tool_call ID pending "Run command: ls -la"`,
			`request_permission ID`,
			`tool_call_update ID in_progress`,
			"text \nCommand ran: 3 files.",
			`tool_call_update ID completed`,
		}},
		{"please run it", "No", []string{
			`text I will run a command.`,
			`tool_call ID pending "Run command: ls -la"`,
			`request_permission ID`,
			`tool_call_update ID failed`,
			"text \nCommand skipped as you asked.",
		}},
		{"edit the notes", "Yes", []string{
			`text I will edit notes.txt.`,
			`tool_call ID pending "Edit file notes.txt"`,
			`request_permission ID`,
			`tool_call_update ID in_progress`,
			"text \nFile edited.",
			`tool_call_update ID completed`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt+" "+tt.choice, func(t *testing.T) {
			t.Parallel()
			c := newClient(choose(tt.choice))
			s := fakeSession(t, nil, c)
			stop, err := prompt(t, deadline(t), s, tt.prompt)
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			if len(c.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(c.asked))
			}
			id := string(c.asked[0].ToolCall.ToolCallID)
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "ID", id))
			}
			if got := c.order(); !slices.Equal(got, want) {
				t.Errorf("the editor got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func equalOptions(a, b []acp.PermissionOption) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].OptionID != b[i].OptionID || a[i].Name != b[i].Name || a[i].Kind != b[i].Kind {
			return false
		}
	}
	return true
}

func TestNumberedDialog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		choice, want string
	}{
		{"Yes, and don't ask again", "I will edit notes.txt.\nFile edited."},
		{"No, tell the agent what to do", "I will edit notes.txt.\nEdit rejected."},
	}
	for _, tt := range tests {
		t.Run(tt.choice, func(t *testing.T) {
			c := newClient(choose(tt.choice))
			s := fakeSession(t, nil, c)
			stop, err := prompt(t, deadline(t), s, "edit the notes")
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			if got := c.text(); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
			want := []acp.PermissionOption{
				{OptionID: "1", Name: "Yes", Kind: "allow_once"},
				{OptionID: "2", Name: "Yes, and don't ask again", Kind: "allow_always"},
				{OptionID: "3", Name: "No, tell the agent what to do", Kind: "reject_once"},
			}
			if len(c.asked) != 1 || !equalOptions(c.asked[0].Options, want) {
				t.Fatalf("asked %+v, want once with %+v", c.asked, want)
			}
			if got := *c.asked[0].ToolCall.Title; got != "Edit file notes.txt" {
				t.Errorf("title = %q", got)
			}
		})
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c, "-word-delay", "5ms")
	ctx, cancel := context.WithCancel(deadline(t))
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := prompt(t, ctx, s, "a long story")
		done <- result{stop, err}
	}()
	<-c.first
	cancel()
	cancelled := time.Now()
	r := <-done
	if r.err != nil || r.stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt = %q, %v; want cancelled", r.stop, r.err)
	}
	t.Logf("cancelled after %s (the bound is measured by BenchmarkCancel)", time.Since(cancelled).Round(time.Millisecond))
	// The interrupt brought the TUI back to idle: the next turn works.
	c.reset()
	stop, err := prompt(t, deadline(t), s, "hello again")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("next Prompt = %q, %v; want end_turn", stop, err)
	}
	if got, want := c.text(), "Hello from the fake TUI. You said: hello again"; got != want {
		t.Errorf("next reply = %q, want %q", got, want)
	}
}

func TestCrashMidReply(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c)
	stop, err := prompt(t, deadline(t), s, "crash now")
	if err == nil {
		t.Fatalf("Prompt = %q, nil error; want the crash", stop)
	}
	for _, want := range []string{"faketui ended during the turn", "exit status 3", "Partial reply before the crash"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got, want := c.text(), "Partial reply before the crash"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

// A dialog the profile does not know leaves a screen that is neither idle
// nor busy: the turn fails saying the TUI no longer matches, instead of
// hanging.
func TestUnknownScreenFails(t *testing.T) {
	t.Parallel()
	src := `name = "old"
version = "FakeTUI v0"
idle = '^  \? for shortcuts$'
busy = '^  esc to interrupt$'
quiet = "50ms"
unknown = "400ms"
`
	p, err := ParseProfile("old.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(nil)
	s := fakeSession(t, p, c)
	_, err = prompt(t, deadline(t), s, "please run it")
	if err == nil || !strings.Contains(err.Error(), `matches nothing profile "old" knows (written against FakeTUI v0)`) ||
		!strings.Contains(err.Error(), "Allow? (y/n)") || !strings.Contains(err.Error(), `idle '^  \? for shortcuts$' does not match`) {
		t.Fatalf("Prompt error = %v; want one saying the screen matches nothing and showing it", err)
	}
}

func TestNoIdleScreenAtStart(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("never.toml", []byte("name = \"never\"\nversion = \"v9\"\nidle = '^never$'\nstart = \"500ms\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := fakeSession(t, p, newClient(nil))
	_, err = prompt(t, deadline(t), s, "hello")
	if err == nil || !strings.Contains(err.Error(), "did not show its idle screen within 500ms") ||
		!strings.Contains(err.Error(), "idle '^never$' does not match") {
		t.Fatalf("Prompt error = %v; want the start-up limit", err)
	}
}

func TestCloseEndsTheAgent(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c)
	if _, err := prompt(t, deadline(t), s, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	inner := s.(*closer).session
	select {
	case <-inner.exited:
	default:
		t.Fatal("the PTY is still open after Close")
	}
	if pid := inner.proc.Pid(); processAlive(pid) {
		t.Errorf("agent %d still runs after Close", pid)
	}
	_, err := prompt(t, deadline(t), s, "hello")
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Prompt after Close = %v; want an error saying the agent ended", err)
	}
}

// The generic profile drives a cooked-mode line-prompt REPL: the prompt is
// typed as one line (no bracketed paste), the terminal's echo is not part
// of the reply, and ^C interrupts.
func TestGenericREPL(t *testing.T) {
	t.Parallel()
	p, err := FindProfile(GenericProfile, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(nil)
	s := fakeSession(t, p, c, "-repl")
	stop, err := prompt(t, deadline(t), s, "hello\nthere")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if got, want := c.text(), "Hello from the fake REPL. You said: hello there"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}

	c = newClient(nil)
	s.(*closer).session.c = c
	ctx, cancel := context.WithCancel(deadline(t))
	done := make(chan error, 1)
	go func() {
		stop, err := prompt(t, ctx, s, "a long one")
		if err == nil && stop != acp.StopReasonCancelled {
			err = errors.New("stop reason " + string(stop))
		}
		done <- err
	}()
	<-c.first
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("cancelled prompt: %v", err)
	}
	if got := c.text(); !strings.HasPrefix(got, "word1") {
		t.Errorf("streamed before the cancel: %q, want the REPL's words", got)
	}
	c.reset()
	if stop, err := prompt(t, deadline(t), s, "again"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after cancel = %q, %v", stop, err)
	}
	if got, want := c.text(), "Hello from the fake REPL. You said: again"; got != want {
		t.Errorf("reply after cancel = %q, want %q", got, want)
	}
}

// An idle pattern that also matches while the agent works (an input box
// that stays on the screen) does not end the turn while busy matches.
func TestBusyIsNotIdle(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("box.toml", []byte(`name = "box"
version = "FakeTUI v1"
idle = '^╰─+╯$'
busy = '^  esc to interrupt$'
quiet = "50ms"
chrome = ['^FakeTUI v\d+ · .*', '^[╭╰]─+[╮╯]$', '^│ > .*│$', '^  (\? for shortcuts|esc to interrupt)$', '^\S Thinking… \(\d+\)$']
`))
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(nil)
	s := fakeSession(t, p, c, "-word-delay", "100ms")
	stop, err := prompt(t, deadline(t), s, "hi")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if got, want := c.text(), "Hello from the fake TUI. You said: hi"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

// A start-up dialog that ignored its answer (keys typed while it settled)
// is answered again.
func TestStartupDialogAnsweredAgain(t *testing.T) {
	t.Parallel()
	p, err := FindProfile("faketui", "")
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Start = Duration(5 * time.Second)
	c := newClient(nil)
	s := fakeSession(t, &q, c, "-trust", "-drop-keys", "1")
	stop, err := prompt(t, deadline(t), s, "hello")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
}

// An agent that ignores the interrupt still gets its turn answered
// cancelled: the bridge's own bound ends it (2 s, the issue's, measured by
// BenchmarkCancel), not the agent, which streams on.
func TestCancelDeafAgent(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, nil, c, "-deaf")
	ctx, cancel := context.WithCancel(deadline(t))
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, err := prompt(t, ctx, s, "a long story")
		if err != nil {
			t.Errorf("Prompt: %v", err)
		}
		done <- stop
	}()
	<-c.first
	cancel()
	cancelled := time.Now()
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
	t.Logf("cancelled after %s (the bound is measured by BenchmarkCancel)", time.Since(cancelled).Round(time.Millisecond))
}

// faketuiProfile is a copy of the built-in faketui profile to change.
func faketuiProfile(t *testing.T) *Profile {
	t.Helper()
	p, err := FindProfile("faketui", "")
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	return &q
}

// helloTurn runs a fake TUI started with args through profile q (nil for
// the built-in one), prompts "hello" and fails the test unless the turn
// ends end_turn with the fake's answer to it.
func helloTurn(t *testing.T, q *Profile, args ...string) {
	t.Helper()
	c := newClient(nil)
	s := fakeSession(t, q, c, args...)
	stop, err := prompt(t, deadline(t), s, "hello")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if got := c.text(); !strings.Contains(got, "You said: hello") {
		t.Errorf("reply = %q, want the fake's answer to the prompt", got)
	}
}

// TestIdleButBusyAtStart: an agent whose ready-looking input box shows
// while it still says it is busy (Gemini CLI's "Initializing... Prompts
// will be queued.") is not prompted until the busy line has gone.
func TestIdleButBusyAtStart(t *testing.T) {
	t.Parallel()
	helloTurn(t, nil, "-busy-start", "700ms")
}

// A TUI that draws its idle screen before its start-up dialog (Gemini CLI
// asks to trust a new folder that way) gets the dialog answered, not the
// prompt typed into it, when the profile's start_quiet outlasts the gap.
func TestStartupDialogAfterIdleScreen(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.StartQuiet = Duration(2 * time.Second)
	helloTurn(t, q, "-late-trust", "300ms")
}

// A start-up dialog drawn later than the profile's start_quiet, over a
// prompt already typed (Gemini CLI's trust dialog on a loaded machine),
// takes the prompt away: the dialog is answered and the prompt typed
// again, rather than the turn waiting on a screen nobody answers.
func TestStartupDialogOverPrompt(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.StartQuiet = q.Quiet
	helloTurn(t, q, "-trust-over-prompt", "600ms")
}

// A prompt the agent drops (Codex's input box emptied with nothing sent
// while it still set up its session on a loaded machine) is typed again
// once the idle screen has shown no trace of it for a while, rather than
// the turn ending empty after the unknown window.
func TestDroppedPromptIsTypedAgain(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.StartQuiet = q.Quiet
	helloTurn(t, q, "-drop-early", "1s")
}

// A start-up dialog the profile answers once gets its keys once, however
// long the TUI takes to act on them: a second answer reaching a TUI that
// acts on every key (Gemini CLI restarting after its trust dialog) is
// another choice, here one that makes it exit.
func TestStartupAnswerOnce(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.Startup = slices.Clone(q.Startup)
	q.Startup[0].AnswerOnce = true
	helloTurn(t, q, "-trust", "-slow-trust", "2500ms")
}

// A TUI whose own stray output overwrote its idle footer, and which does
// not redraw it, is asked to redraw with the profile's redraw keys rather
// than waited on until the start bound.
func TestRedrawAGarbledStart(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.Redraw = Keys{"ctrl-l"}
	// The idle screen must be seen before the stray line covers it (the
	// redraw is only for a screen that was idle), and must not be taken
	// for the first prompt before then.
	q.StartQuiet = Duration(4 * time.Second)
	q.Start = Duration(30 * time.Second)
	helloTurn(t, q, "-stray-output", "1500ms")
}

// The profile's ready pattern holds the first prompt until the agent's
// first screen is whole; one that never matches (a banner the user turned
// off) delays it by readyWait, not for good.
func TestReadyPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, ready string }{{"drawn", `^FakeTUI v1 `}, {"never drawn", `^no such banner$`}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := faketuiProfile(t)
			if err := q.Ready.UnmarshalText([]byte(tt.ready)); err != nil {
				t.Fatal(err)
			}
			helloTurn(t, q)
		})
	}
}

// A TUI starved of CPU may show a taken prompt (its echo, the input box
// cleared) seconds before it shows it is busy: an idle-looking screen that
// only changed is not the end of the turn.
func TestSlowToShowBusy(t *testing.T) {
	t.Parallel()
	helloTurn(t, nil, "-slow-busy", "2500ms")
}

// A TUI that draws its idle input box and then reads nothing for a while
// (Gemini CLI restarting after its trust dialog, under load) leaves the
// screen idle and quiet after the prompt's Enter: that is not the prompt
// taken. It reads the paste and the Enter in one go and takes the Enter as
// more of the paste, so the Enter is typed again until the screen shows
// the prompt was taken.
func TestSubmitToATUINotReadingYet(t *testing.T) {
	t.Parallel()
	q := faketuiProfile(t)
	q.SubmitDelay = Duration(100 * time.Millisecond)
	helloTurn(t, q, "-deaf-start", "700ms", "-paste-eats-enter")
}

// A start-up dialog asked of the editor: a no ends the session, unless the
// agent goes on after that no (Gemini CLI runs in a folder it was told not
// to trust); then the prompt is served.
func TestStartupRejectGoesOn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		goesOn bool
	}{{"ends the session", false}, {"goes on", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := FindProfile("faketui", "")
			if err != nil {
				t.Fatal(err)
			}
			q := *p
			q.Startup = []Startup{{Name: "trust", Match: p.Startup[0].Match, Options: []Option{
				{Label: "Yes, proceed", Kind: "allow_once", Keys: Keys{"1"}},
				{Label: "No, but go on untrusted", Kind: "reject_once", Keys: Keys{"3"}, GoesOn: tt.goesOn},
			}}}
			c := newClient(choose("No, but go on untrusted"))
			s := fakeSession(t, &q, c, "-trust")
			stop, err := prompt(t, deadline(t), s, "hello")
			switch {
			case tt.goesOn && (err != nil || stop != acp.StopReasonEndTurn || !strings.Contains(c.text(), "You said: hello")):
				t.Errorf("Prompt = %q, %v, reply %q; want end_turn and the reply", stop, err, c.text())
			case !tt.goesOn && (err == nil || !strings.Contains(err.Error(), `answered "No, but go on untrusted"`)):
				t.Errorf("Prompt = %q, %v; want the session failed by the editor's no", stop, err)
			}
		})
	}
}
