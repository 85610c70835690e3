package claude

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// startChild plays the start of a turn that runs a foreground sub-agent:
// the Agent call, task_started, and the sub-agent's text.
func startChild(c *cli) error {
	if err := c.initialized(); err != nil {
		return err
	}
	if _, err := c.next(); err != nil {
		return err
	}
	return c.write(
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_A","name":"Agent","input":{"description":"Look","prompt":"P","subagent_type":"general-purpose"}}]},"parent_tool_use_id":null}`,
		`{"type":"system","subtype":"task_started","task_id":"kid1","tool_use_id":"toolu_A","description":"Look","subagent_type":"general-purpose","is_backgrounded":false,"task_type":"local_agent","prompt":"P"}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"child text"}]},"parent_tool_use_id":"toolu_A","agent_id":"kid1"}`)
}

// TestChildEnds: no child session is left running when the CLI dies, when
// the parent's turn is cancelled (the sub-agent is stopped with stop_task)
// or when the session closes.
func TestChildEnds(t *testing.T) {
	for _, tt := range []struct {
		name string
		// end ends the turn; the CLI's stdin lines are in got.
		end  func(t *testing.T, s acp.Session, cancel context.CancelFunc, done <-chan error)
		play func(c *cli, got func(string)) error
		want string // the child's states
	}{
		{"CLI dies", func(t *testing.T, _ acp.Session, _ context.CancelFunc, done <-chan error) {
			if err := <-done; err == nil || !strings.Contains(err.Error(), "exit status 137") {
				t.Errorf("Prompt = %v, want the exit", err)
			}
		}, func(c *cli, _ func(string)) error {
			if err := startChild(c); err != nil {
				return err
			}
			return errors.New("exit status 137")
		}, "running idle"},
		{"parent cancelled", func(t *testing.T, _ acp.Session, cancel context.CancelFunc, done <-chan error) {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Prompt = %v, want cancelled", err)
			}
		}, func(c *cli, got func(string)) error {
			if err := startChild(c); err != nil {
				return err
			}
			for {
				line, err := c.next()
				if err != nil {
					return err
				}
				sub := line.Get("request.subtype").String()
				got(sub + " " + line.Get("request.task_id").String())
				if sub == "interrupt" {
					_ = c.write(`{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_streaming"}`)
				}
			}
		}, "running idle/cancelled"},
		{"session closed", func(t *testing.T, s acp.Session, _ context.CancelFunc, done <-chan error) {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
			<-done
		}, func(c *cli, _ func(string)) error {
			if err := startChild(c); err != nil {
				return err
			}
			return drain(c)
		}, "running idle/cancelled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var lines []string
			got := func(s string) {
				mu.Lock()
				lines = append(lines, s)
				mu.Unlock()
			}
			l := &launcher{plays: []func(*cli) error{func(c *cli) error { return tt.play(c, got) }}}
			e := newChildEditor(t)
			a := newTestAdapter(t, l, Options{CancelGrace: 5 * time.Second})
			s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, e)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := s.Prompt(ctx, prompt("go"))
				done <- err
			}()
			// The child's text has been sent once it is announced and
			// has spoken.
			for deadline := time.Now().Add(10 * time.Second); ; {
				f := e.Frames()
				if slices.ContainsFunc(f, func(f acptest.ChildFrame) bool {
					return f.Session == "kid1" && f.U["sessionUpdate"] == "agent_message_chunk"
				}) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the child never spoke: %+v", f)
				}
				time.Sleep(10 * time.Millisecond)
			}
			tt.end(t, s, cancel, done)
			_ = s.Close()
			frames := e.Frames()
			checkChildApart(t, frames, s.ID(), "kid1")
			if got := strings.Join(acptest.SubagentStates(frames, s.ID(), "kid1"), " "); got != tt.want {
				t.Errorf("child states %q, want %q", got, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.name == "parent cancelled" && !strings.Contains(strings.Join(lines, ","), "stop_task kid1") {
				t.Errorf("the CLI was sent %q, want a stop_task of kid1", lines)
			}
		})
	}
}

// checkChildApart checks that everything of child comes after its
// announcement on parent, and nothing of it is the parent's.
func checkChildApart(t *testing.T, frames []acptest.ChildFrame, parent, child acp.SessionID) {
	t.Helper()
	announced := false
	for i, f := range frames {
		switch {
		case f.Session == parent && f.U["sessionUpdate"] == "subagent_update" && f.U["sessionId"] == string(child):
			announced = true
		case f.Session == child && !announced:
			t.Errorf("frame %d of the child before its announcement: %v", i, f.U)
		case f.Session == parent && f.U["sessionUpdate"] == "agent_message_chunk":
			t.Errorf("frame %d: text on the parent: %v", i, f.U)
		}
	}
}
