// Like auto_test.go, whose helpers it uses, this runs where /proc is.

//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// lineClient is an editor that writes and reads raw JSON-RPC lines: the
// Go SDK client has no sub-agent (unstable) types.
type lineClient struct {
	t    *testing.T
	w    io.Writer
	r    *bufio.Reader
	next int
}

// lineFrame is one line the bridge wrote.
type lineFrame struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	raw    []byte
}

func (c *lineClient) send(v any) {
	c.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("writing to the bridge: %v", err)
	}
}

// request sends a request and returns its id.
func (c *lineClient) request(method string, params any) int {
	c.t.Helper()
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return c.next
}

func (c *lineClient) read() lineFrame {
	c.t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading the bridge: %v", err)
	}
	var f lineFrame
	if err := json.Unmarshal(line, &f); err != nil {
		c.t.Fatalf("bridge wrote %q: %v", line, err)
	}
	f.raw = line
	return f
}

// await reads until the answer to id, handing every other frame to other.
func (c *lineClient) await(id int, other func(lineFrame)) json.RawMessage {
	c.t.Helper()
	for {
		f := c.read()
		if f.Method == "" && f.ID != nil && *f.ID == id {
			if f.Error != nil {
				c.t.Fatalf("request %d failed: %s", id, f.Error)
			}
			return f.Result
		}
		if other != nil {
			other(f)
		}
	}
}

// TestAutoChildSessions: under `acpbridge auto`, Claude Code's sub-agent
// is a child session for an editor that advertised subagents, as it is
// with `acpbridge claude` (the fake CLI plays a recorded foreground
// sub-agent whose Bash asks permission): announced on the parent, its
// text, tool calls and permission request under its own id, and ended
// idle before the parent's answer. Every frame is checked against the
// pinned unstable schema.
func TestAutoChildSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, cmd := range [][]string{{"claude"}, append([]string{"auto"}, noOtherAgents("claude")...)} {
		t.Run(cmd[0], func(t *testing.T) {
			tap := acpclient.NewTap(acptest.LoadUnstable(t).NewChecker(), func(err error) { t.Errorf("schema: %v", err) })
			args := append(append([]string(nil), cmd...), "--claude-path", fakeAgentPath)
			b := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: args, Tap: tap, Env: append(os.Environ(),
				"XDG_CACHE_HOME="+t.TempDir(), "ACPBRIDGE_FAKEAGENT="+fixture("claude/subagent_sync.txtar"), "ACPBRIDGE_CLAUDE_MODEL_CACHE=-")})
			c := &lineClient{t: t, w: b.Stdin, r: bufio.NewReaderSize(b.Stdout, 1<<20)}
			deadline := time.AfterFunc(90*time.Second, func() { b.Cmd.Process.Kill() })
			defer deadline.Stop()

			c.await(c.request("initialize", map[string]any{"protocolVersion": 1,
				"clientCapabilities": map[string]any{"subagents": map[string]any{}}}), nil)
			var opened struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(c.await(c.request("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}), nil), &opened)
			sid := opened.SessionID
			id := c.request("session/prompt", map[string]any{"sessionId": sid,
				"prompt": []any{map[string]any{"type": "text", "text": "Ask a helper what is in the project."}}})
			var kid string
			var kidStates []string
			kidUpdates, kidAsked := 0, 0
			res := c.await(id, func(f lineFrame) {
				var p struct {
					SessionID string `json:"sessionId"`
					Update    struct {
						Kind      string `json:"sessionUpdate"`
						SessionID string `json:"sessionId"`
						State     *struct {
							State string `json:"state"`
						} `json:"state"`
					} `json:"update"`
					Options []struct {
						OptionID string `json:"optionId"`
						Kind     string `json:"kind"`
					} `json:"options"`
				}
				json.Unmarshal(f.Params, &p)
				switch {
				case f.Method == "session/request_permission":
					if kid != "" && p.SessionID == kid {
						kidAsked++
					}
					choice := ""
					for _, o := range p.Options {
						if o.Kind == "allow_once" {
							choice = o.OptionID
						}
					}
					c.send(map[string]any{"jsonrpc": "2.0", "id": f.ID, "result": map[string]any{
						"outcome": map[string]any{"outcome": "selected", "optionId": choice}}})
				case p.Update.Kind == "subagent_update" && p.SessionID == sid:
					kid = p.Update.SessionID
					if p.Update.State != nil {
						kidStates = append(kidStates, p.Update.State.State)
					}
				case f.Method == "session/update" && p.SessionID != sid:
					if kid == "" || p.SessionID != kid {
						t.Errorf("an update of session %q before any child was announced: %s", p.SessionID, f.raw)
					}
					kidUpdates++
				}
			})
			var answer struct {
				StopReason string `json:"stopReason"`
			}
			json.Unmarshal(res, &answer)
			if answer.StopReason != "end_turn" {
				t.Errorf("the turn ended %s", res)
			}
			if kid == "" || kid == sid || kidUpdates == 0 || kidAsked != 1 {
				t.Fatalf("child %q: %d updates and %d permission requests under its id; want a child session with its own updates and its one question",
					kid, kidUpdates, kidAsked)
			}
			if len(kidStates) < 2 || kidStates[0] != "running" || kidStates[len(kidStates)-1] != "idle" {
				t.Errorf("the child's states %v, want running first and idle last", kidStates)
			}
		})
	}
}
