package claude

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// steerThenCancel plays the CLI's side of a turn that is steered and then
// cancelled at once: it streams a reply, reads the steering message and
// the interrupt, and answers with after(its stdin, the uuid of the
// steering message, the request id of the interrupt). Then it answers
// every later prompt; after reports whether it read the first of them.
func steerThenCancel(after func(c *cli, stdin <-chan gjson.Result, uuid, interrupt string) (readPrompt bool, err error)) func(c *cli) error {
	return func(c *cli) error {
		if err := c.initialized(); err != nil {
			return err
		}
		stdin := make(chan gjson.Result)
		go func() {
			defer close(stdin)
			for {
				line, err := c.next()
				if err != nil {
					return
				}
				stdin <- line
			}
		}()
		if _, ok := <-stdin; !ok {
			return io.EOF
		}
		if err := c.write(`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Th"}]}}`); err != nil {
			return err
		}
		steer, ok1 := <-stdin
		interrupt, ok2 := <-stdin
		if !ok1 || !ok2 {
			return io.EOF
		}
		if steer.Get("type").String() != "user" || interrupt.Get("request.subtype").String() != "interrupt" {
			return fmt.Errorf("want the steering message then the interrupt, got %s and %s", steer.Raw, interrupt.Raw)
		}
		read, err := after(c, stdin, steer.Get("uuid").String(), interrupt.Get("request_id").String())
		if err != nil {
			return err
		}
		for {
			if !read {
				if _, ok := <-stdin; !ok {
					return io.EOF
				}
			}
			read = false
			if err := c.write(
				`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Fresh reply."}]}}`,
				`{"type":"result","subtype":"success","is_error":false,"stop_reason":"end_turn","result":"Fresh reply."}`); err != nil {
				return err
			}
		}
	}
}

func lifecycle(uuid, state string) string {
	return `{"type":"command_lifecycle","command_uuid":"` + uuid + `","state":"` + state + `"}`
}

func interruptAnswer(id string, cancelled ...string) string {
	list := `[]`
	if len(cancelled) > 0 {
		list = `["` + strings.Join(cancelled, `","`) + `"]`
	}
	return `{"type":"control_response","response":{"subtype":"success","request_id":"` + id +
		`","response":{"still_queued":[],"cancelled":` + list + `}}}`
}

// abortedReply is the result of the reply the steering message aborted.
const abortedReply = `{"type":"result","subtype":"success","is_error":false,"stop_reason":null,"result":"Th"}`

// promptResult is how a Prompt run in the background ended.
type promptResult struct {
	stop acp.StopReason
	err  error
}

// promptStreaming runs a prompt on s in the background and returns once
// the turn streams (streaming receives); the channel then gives how
// Prompt ended. A turn that ends before it streams fails the test.
func promptStreaming(t *testing.T, ctx context.Context, s acp.Session, text string, streaming <-chan struct{}) <-chan promptResult {
	t.Helper()
	done := make(chan promptResult, 1)
	go func() {
		stop, err := s.Prompt(ctx, prompt(text))
		done <- promptResult{stop, err}
	}()
	select {
	case <-streaming:
	case r := <-done:
		t.Fatalf("the turn ended (%q, %v) before it streamed", r.stop, r.err)
	}
	return done
}

// steerCancelAndPrompt runs a turn on play, steers it once it streams and
// cancels it, then runs one more prompt. The first must end cancelled, the
// second with its own reply.
func steerCancelAndPrompt(t *testing.T, play func(*cli) error) {
	t.Helper()
	l := &launcher{plays: []func(*cli) error{play}}
	var (
		mu        sync.Mutex
		b         strings.Builder
		streaming = make(chan struct{}, 1)
	)
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			mu.Lock()
			b.WriteString(c.Content.Text.Text)
			mu.Unlock()
			select {
			case streaming <- struct{}{}:
			default:
			}
		}
		return nil
	}}
	a := newTestAdapter(t, l, Options{CancelGrace: 10 * time.Second})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := promptStreaming(t, ctx, s, "Tell me something, slowly.", streaming)
	if err := s.(acp.Steerer).Steer(t.Context(), steerRequest(s, "Stop that.")); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	cancel()
	o := <-done
	if o.err != nil {
		t.Fatalf("cancelled Prompt: %v", o.err)
	}
	mu.Lock()
	b.Reset()
	mu.Unlock()
	if o.stop != acp.StopReasonCancelled {
		t.Errorf("cancelled Prompt = %q, want cancelled", o.stop)
	}
	stop, err := s.Prompt(t.Context(), prompt("Never mind."))
	mu.Lock()
	text := b.String()
	mu.Unlock()
	if err != nil || stop != acp.StopReasonEndTurn || text != "Fresh reply." {
		t.Errorf("next Prompt = %q, %v with text %q; want end_turn with %q", stop, err, text, "Fresh reply.")
	}
}

// TestCancelWaitsForTheSteeredRun is the race Claude Code showed: the
// steering message is taken out of the queue and run before the CLI reads
// the interrupt, which then aborts that run. The cancelled turn ends with
// the run's result, not at the first one, so the next prompt gets its own
// reply. The CLI holds the run back until the next prompt arrives (or a
// while has passed), as it did when the first result ended the turn.
func TestCancelWaitsForTheSteeredRun(t *testing.T) {
	steerCancelAndPrompt(t, steerThenCancel(func(c *cli, stdin <-chan gjson.Result, uuid, interrupt string) (bool, error) {
		if err := c.write(lifecycle(uuid, "queued"), abortedReply); err != nil {
			return false, err
		}
		// The next prompt, if the turn ended here, arrives meanwhile.
		read := false
		select {
		case _, read = <-stdin:
		case <-time.After(300 * time.Millisecond):
		}
		return read, c.write(
			lifecycle(uuid, "started"),
			`{"type":"system","subtype":"status","status":"requesting","user_message_uuids":["`+uuid+`"]}`,
			interruptAnswer(interrupt),
			`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
			`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":[],"user_message_uuids":["`+uuid+`"]}`,
			lifecycle(uuid, "cancelled"))
	}))
}

// TestCancelDropsTheQueuedSteering: the interrupt finds the steering
// message still queued and drops it (cancel_queued); no result will name
// it, and the CLI need not report its idle state: the turn ends when the
// message is dropped.
func TestCancelDropsTheQueuedSteering(t *testing.T) {
	steerCancelAndPrompt(t, steerThenCancel(func(c *cli, _ <-chan gjson.Result, uuid, interrupt string) (bool, error) {
		return false, c.write(lifecycle(uuid, "queued"), abortedReply, interruptAnswer(interrupt, uuid), lifecycle(uuid, "cancelled"))
	}))
}

// TestCancelEndsAtIdle: the CLI's idle state ends a cancelled turn even
// with a steering message it never accounted for.
func TestCancelEndsAtIdle(t *testing.T) {
	steerCancelAndPrompt(t, steerThenCancel(func(c *cli, _ <-chan gjson.Result, _, interrupt string) (bool, error) {
		return false, c.write(abortedReply, interruptAnswer(interrupt),
			`{"type":"system","subtype":"session_state_changed","state":"idle"}`)
	}))
}
