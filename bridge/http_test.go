package bridge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// startHTTP serves a over real HTTP on a loopback port until the test
// ends.
func startHTTP(t *testing.T, a bridge.Adapter, opts bridge.HTTPOptions) (*httptest.Server, *bridge.HTTPHandler) {
	t.Helper()
	srv := bridge.New(a, bridge.Options{Version: "test", Logger: zerolog.New(zerolog.NewTestWriter(t))})
	h := srv.NewHTTPHandler(opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts, h
}

func chunk(text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(text)}}
}

func permissionRequest(sid acp.SessionID) acp.RequestPermissionRequest {
	return acp.RequestPermissionRequest{
		SessionID: sid,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: "t1", Title: acp.Ptr("Run ls")},
		Options: []acp.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	}
}

// permissionTurn says something, asks permission for a tool call, and
// reports which option it got; it ends cancelled when the permission
// request is withdrawn.
func permissionTurn(ctx context.Context, s *scriptSession, _ acp.PromptRequest) (acp.StopReason, error) {
	s.say(ctx, chunk("working on it"))
	s.say(ctx, acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: "t1", Title: "Run ls",
		Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending}})
	res, err := s.c.RequestPermission(ctx, permissionRequest(s.id))
	if err != nil {
		return "", err
	}
	if res.Outcome.Selected == nil {
		return acp.StopReasonCancelled, nil
	}
	st := acp.ToolCallStatusCompleted
	s.say(ctx, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "t1", Status: &st}})
	for i := range 5 {
		s.say(ctx, chunk("after "+strconv.Itoa(i)))
	}
	s.say(ctx, chunk("answer: "+string(res.Outcome.Selected.OptionID)))
	return acp.StopReasonEndTurn, nil
}

// lastText is the text of the last agent_message_chunk in frames.
func lastText(frames []frame) string {
	text := ""
	for _, f := range frames {
		if u, ok := f.params()["update"].(map[string]any); ok && u["sessionUpdate"] == "agent_message_chunk" {
			text, _ = u["content"].(map[string]any)["text"].(string)
		}
	}
	return text
}

// TestHTTPTurn runs a whole turn over each wire shape: the permission
// request arrives on a stream and is answered by POST, and every message is
// valid ACP.
func TestHTTPTurn(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{turn: permissionTurn}, bridge.HTTPOptions{})
	for _, shape := range shapes() {
		t.Run(shape, func(t *testing.T) {
			c := newClient(t, ts.URL, shape, v)
			c.start()
			sid := c.newSession()
			log := c.turn(sid, "list the files")
			if log.stop != "end_turn" || log.asked != 1 {
				t.Fatalf("stopReason %q after %d permission requests; want end_turn after 1", log.stop, log.asked)
			}
			if got := lastText(log.frames); got != "answer: allow" {
				t.Errorf("the adapter reported %q; the POSTed answer did not reach it", got)
			}
			if log.updates["tool_call"] != 1 || log.updates["tool_call_update"] != 1 || log.updates["agent_message_chunk"] != 7 {
				t.Errorf("updates %v", log.updates)
			}
		})
	}
}

// TestHTTPCancel cancels a turn that waits for a permission answer: the
// request is withdrawn ($/cancel_request) and the turn ends cancelled.
func TestHTTPCancel(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{turn: permissionTurn}, bridge.HTTPOptions{})
	for _, shape := range shapes() {
		t.Run(shape, func(t *testing.T) {
			c := newClient(t, ts.URL, shape, v)
			c.start()
			sid := c.newSession()
			id := c.call("session/prompt", prompt(sid))
			req := waitFor(c, "session/request_permission")
			c.notify("session/cancel", map[string]any{"sessionId": sid})
			expectCancelled(t, c, id, req)
		})
	}
}

// waitFor reads frames until one with method.
func waitFor(c *httpClient, method string) frame {
	c.t.Helper()
	for {
		if f := c.next(); f.method() == method {
			return f
		}
	}
}

// expectCancelled reads the cancelled answer to prompt id and the
// withdrawal of permission request req, in either order.
func expectCancelled(t *testing.T, c *httpClient, id int, req frame) {
	t.Helper()
	var answered, withdrawn bool
	for !answered || !withdrawn {
		f := c.next()
		switch {
		case f.method() == "$/cancel_request":
			jsonEqual(t, f.params(), `{"requestId":`+jsonOf(req.m["id"])+`}`)
			withdrawn = true
		case f.isAnswer(id):
			if f.result()["stopReason"] != "cancelled" {
				t.Fatalf("prompt answer %s, want stopReason cancelled", f.raw)
			}
			answered = true
		}
	}
}

// TestHTTPClientsAreIsolated runs clients of both shapes in parallel: each
// sees only its own session's messages.
func TestHTTPClientsAreIsolated(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{turn: permissionTurn}, bridge.HTTPOptions{})
	for i := range 6 {
		shape := shapes()[i%2]
		t.Run(shape+strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			c := newClient(t, ts.URL, shape, v)
			c.start()
			sid := c.newSession()
			for range 2 {
				if log := c.turn(sid, "go"); log.stop != "end_turn" || log.asked != 1 {
					t.Errorf("turn ended %q after %d permission requests", log.stop, log.asked)
				}
			}
		})
	}
}

// TestHTTPAnswerOnAnotherConnection has a second client answer the first
// one's pending permission request by its id: ids mean nothing across
// connections, so the request stays pending and a cancel withdraws it.
func TestHTTPAnswerOnAnotherConnection(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{turn: permissionTurn}, bridge.HTTPOptions{})
	a, b := newClient(t, ts.URL, "client_id", v), newClient(t, ts.URL, "client_id", v)
	a.start()
	b.start()
	sid := a.newSession()
	id := a.call("session/prompt", prompt(sid))
	req := waitFor(a, "session/request_permission")
	forged := `{"jsonrpc":"2.0","id":` + jsonOf(req.m["id"]) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`
	if st, body := b.post([]byte(forged), ""); st != http.StatusAccepted {
		t.Fatalf("POST of b's answer: %d %s", st, body)
	}
	// b's connection reads its messages in order: once b's next request is
	// answered, the forged answer has been handled (on b's connection).
	b.newSession()
	a.notify("session/cancel", map[string]any{"sessionId": sid})
	expectCancelled(t, a, id, req)
}

// seqOf is the sequence number in an event id "GEN-SEQ".
func seqOf(t *testing.T, id string) (string, int) {
	t.Helper()
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.Atoi(id[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("event id %q is not GEN-SEQ", id)
	}
	return id[:i], n
}

// TestHTTPReconnect drops a client_id stream while a turn goes on, and
// reconnects with Last-Event-ID: the client gets exactly the messages after
// that id, in order, including those sent while it was away; a second
// reconnect takes the stream over and gets them again; a stranger without
// an id of the stream is refused.
func TestHTTPReconnect(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{turn: permissionTurn}, bridge.HTTPOptions{})
	c := newClient(t, ts.URL, "client_id", v)
	c.start()
	sid := c.newSession()
	id := c.call("session/prompt", prompt(sid))
	req := waitFor(c, "session/request_permission")
	c.stopAll()
	c.respond(req, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow"}})

	_, r1 := c.open("", req.event)
	first := readUntilAnswer(t, c, id)
	gen, seq := seqOf(t, req.event)
	for i, f := range first {
		g, n := seqOf(t, f.event)
		if g != gen || n != seq+1+i {
			t.Fatalf("event %d after reconnect has id %s, want %s-%d", i, f.event, gen, seq+1+i)
		}
	}
	if got := lastText(first); got != "answer: allow" || len(first) != 8 {
		t.Fatalf("after reconnect: %d messages, last text %q; want 8 ending with the answer", len(first), got)
	}

	if st, _ := c.open("", ""); st != http.StatusConflict {
		t.Errorf("a second reader without Last-Event-ID got %d, want 409", st)
	}
	_, _ = c.open("", req.event)
	select {
	case <-r1.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader that was taken over still has its stream")
	}
	again := readUntilAnswer(t, c, id)
	if len(again) != len(first) {
		t.Fatalf("second reconnect got %d messages, want %d", len(again), len(first))
	}
	for i := range again {
		if again[i].event != first[i].event || string(again[i].raw) != string(first[i].raw) {
			t.Errorf("message %d differs on the second reconnect: %s vs %s", i, again[i].raw, first[i].raw)
		}
	}
}

// readUntilAnswer returns the frames up to and including the answer to id.
func readUntilAnswer(t *testing.T, c *httpClient, id int) []frame {
	t.Helper()
	ans, before := c.answer(id)
	return append(before, ans)
}

// TestHTTPResetAfterConnectionEnded reconnects with the Last-Event-ID of a
// connection that has ended: the new stream says so first.
func TestHTTPResetAfterConnectionEnded(t *testing.T) {
	v := acptest.Load(t)
	ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{})
	c := newClient(t, ts.URL, "client_id", v)
	c.start()
	f, _ := c.answer(c.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
	c.stopAll()
	resp := c.request(context.Background(), http.MethodDelete, c.url("sse"), nil, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if st, _ := c.open("", f.event); st != http.StatusOK {
		t.Fatalf("GET after DELETE: %d", st)
	}
	n := c.next()
	if n.method() != bridge.MethodMessagesLost || !strings.Contains(n.params()["reason"].(string), "initialize") {
		t.Fatalf("first message on the new stream: %s", n.raw)
	}
}

// TestHTTPUnknownLastEventID opens a stream of a connection that is open
// with a Last-Event-ID it never issued: the stream must not claim that the
// connection ended or that messages were lost, and it carries what is
// waiting for the client.
func TestHTTPUnknownLastEventID(t *testing.T) {
	v := acptest.Load(t)
	for _, shape := range []string{"client_id", "streamable"} {
		t.Run(shape, func(t *testing.T) {
			ts, _ := startHTTP(t, &scriptAdapter{}, bridge.HTTPOptions{})
			c := newClient(t, ts.URL, shape, v)
			var id int
			if shape == "client_id" {
				// The POSTed initialize opens the connection; its answer
				// waits on the stream.
				id = c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
				if st, _ := c.open("", "made-up-7"); st != http.StatusOK {
					t.Fatalf("GET with a made-up Last-Event-ID: %d", st)
				}
			} else {
				c.start()
				sid := c.newSession()
				if st, _ := c.open(sid, "made-up-7"); st != http.StatusOK {
					t.Fatalf("GET of the session stream with a made-up Last-Event-ID: %d", st)
				}
				id = c.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "default"})
			}
			ans, before := c.answer(id)
			for _, f := range append(before, ans) {
				if f.method() == bridge.MethodMessagesLost {
					t.Fatalf("stream opened with a made-up Last-Event-ID said %s", f.raw)
				}
			}
		})
	}
}
