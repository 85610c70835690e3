package bridge_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// fwdAdapter is an agent that speaks ACP itself: it answers initialize
// (acp.Initializer) and takes what the bridge cannot model (acp.Forwarder),
// recording the methods it was handed.
type fwdAdapter struct {
	*scriptAdapter
	// prompt, if set, runs each session/prompt (else end_turn at once).
	prompt    func(ctx context.Context) (json.RawMessage, error)
	mu        sync.Mutex
	forwarded []string // guarded by mu; methods, as Forward or Open saw them
}

const fwdInitialize = `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":false,"audio":false,"embeddedContext":false},"mcpCapabilities":{"http":false,"sse":false},"sessionCapabilities":{"close":{},"list":{}}},"authMethods":[],"agentInfo":{"name":"fwd-agent","version":"9"}}`

func (a *fwdAdapter) Initialize(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(fwdInitialize), nil
}

func (a *fwdAdapter) record(method string) {
	a.mu.Lock()
	a.forwarded = append(a.forwarded, method)
	a.mu.Unlock()
}

func (a *fwdAdapter) methods() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.forwarded)
}

func (a *fwdAdapter) Open(_ context.Context, method string, params json.RawMessage, _ acp.RawClient) (acp.RawSession, json.RawMessage, error) {
	a.record(method)
	id := sessionIDOf(params)
	if id == "" {
		id = "raw1"
	}
	return &fwdSession{a: a, id: id}, json.RawMessage(`{"sessionId":"` + string(id) + `","x-future":"kept"}`), nil
}

func (a *fwdAdapter) Forward(_ context.Context, method string, _ json.RawMessage, _ acp.RawClient) (json.RawMessage, error) {
	a.record(method)
	if method == acp.MethodSessionList {
		return json.RawMessage(`{"sessions":[{"sessionId":"forwarded","cwd":"/srv"}]}`), nil
	}
	return json.RawMessage(`{}`), nil
}

func (a *fwdAdapter) Notify(_ context.Context, method string, _ json.RawMessage, _ acp.RawClient) error {
	a.record(method)
	return nil
}

type fwdSession struct {
	a  *fwdAdapter
	id acp.SessionID
}

func (s *fwdSession) ID() acp.SessionID { return s.id }

func (s *fwdSession) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	s.a.record(string(s.id) + " " + method)
	if method == acp.MethodSessionPrompt && s.a.prompt != nil {
		return s.a.prompt(ctx)
	}
	if method == acp.MethodSessionPrompt {
		return json.RawMessage(`{"stopReason":"end_turn","x-future":"kept"}`), nil
	}
	return json.RawMessage(`{}`), nil
}

func (s *fwdSession) Notify(context.Context, string, json.RawMessage) error { return nil }
func (s *fwdSession) Close() error                                          { return nil }

func sessionIDOf(params json.RawMessage) acp.SessionID {
	var v struct {
		SessionID acp.SessionID `json:"sessionId"`
	}
	json.Unmarshal(params, &v)
	return v.SessionID
}

// fwdLister is a Forwarder that lists sessions itself.
type fwdLister struct{ *fwdAdapter }

func (a fwdLister) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return loadingAdapter{a.scriptAdapter}.ListSessions(ctx, req)
}

// fwdLoader is a Forwarder that loads sessions itself, as typed sessions.
type fwdLoader struct{ *fwdAdapter }

func (a fwdLoader) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	return loadingAdapter{a.scriptAdapter}.LoadSession(ctx, req, c)
}

var (
	_ acp.Initializer = (*fwdAdapter)(nil)
	_ acp.Forwarder   = (*fwdAdapter)(nil)
	_ acp.RawSession  = (*fwdSession)(nil)
	_ acp.Lister      = fwdLister{}
	_ acp.Loader      = fwdLoader{}
)

// TestInitializerAnswersInitialize: an adapter's own initialize answer is
// what the editor is offered, through the initialize every adapter goes
// through (its params are still validated).
func TestInitializerAnswersInitialize(t *testing.T) {
	t.Parallel()
	e := startEditor(t, &fwdAdapter{scriptAdapter: &scriptAdapter{}})
	bad, _ := e.answer(e.call("initialize", map[string]any{"protocolVersion": "one"}))
	if bad["error"] == nil {
		t.Errorf("an invalid initialize was answered %v, want invalid params", bad)
	}
	res, _ := e.result(e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	jsonEqual(t, res, fwdInitialize)
}

// TestForwarderKeepsTypedInterfaces: implementing Forwarder does not make
// the Server ignore the contract's other optional interfaces. Each method
// goes to its typed interface when the adapter has it, and to the Forwarder
// otherwise; a capability is never dropped because of the adapter's kind.
func TestForwarderKeepsTypedInterfaces(t *testing.T) {
	t.Parallel()
	list := func(e *editor) string {
		res, _ := e.result(e.call("session/list", map[string]any{}))
		return res["sessions"].([]any)[0].(map[string]any)["sessionId"].(string)
	}
	load := func(e *editor) []map[string]any {
		_, before := e.result(e.call("session/load", map[string]any{"sessionId": "stored", "cwd": "/tmp", "mcpServers": []any{}}))
		return before
	}
	history := []acp.SessionUpdate{{AgentMessageChunk: &acp.ContentChunk{Content: acp.TextBlock("earlier")}}}

	t.Run("forwarder alone", func(t *testing.T) {
		t.Parallel()
		a := &fwdAdapter{scriptAdapter: &scriptAdapter{history: history}}
		e := startEditor(t, a)
		e.initialize()
		if got := list(e); got != "forwarded" {
			t.Errorf("session/list answered by %q, want the forwarded answer", got)
		}
		if replayed := load(e); len(replayed) != 0 {
			t.Errorf("session/load replayed %d frames, want the agent's own (none here)", len(replayed))
		}
		if want := []string{acp.MethodSessionList, acp.MethodSessionLoad}; !slices.Equal(a.methods(), want) {
			t.Errorf("forwarded %q, want %q", a.methods(), want)
		}
	})
	t.Run("forwarder and lister", func(t *testing.T) {
		t.Parallel()
		a := &fwdAdapter{scriptAdapter: &scriptAdapter{}}
		e := startEditor(t, fwdLister{a})
		e.initialize()
		if got := list(e); got != "stored" {
			t.Errorf("session/list answered by %q, want Lister's", got)
		}
		if len(a.methods()) != 0 {
			t.Errorf("forwarded %q, want nothing", a.methods())
		}
	})
	t.Run("forwarder and loader", func(t *testing.T) {
		t.Parallel()
		a := &fwdAdapter{scriptAdapter: &scriptAdapter{history: history}}
		e := startEditor(t, fwdLoader{a})
		e.initialize()
		if replayed := load(e); len(replayed) != 1 || updateKind(replayed[0]) != "agent_message_chunk" {
			t.Errorf("session/load replayed %v, want Loader's history", replayed)
		}
		// The loaded session is typed: its turn runs through Prompt.
		res, _ := e.result(e.call("session/prompt", map[string]any{"sessionId": "stored", "prompt": []any{}}))
		jsonEqual(t, res, `{"stopReason":"end_turn"}`)
		if len(a.methods()) != 0 {
			t.Errorf("forwarded %q, want nothing", a.methods())
		}
	})
}

// TestRawSessionGetsItsRequests: a session a Forwarder opened gets the
// requests that name it with params unchanged, and its answers reach the
// editor unchanged; a session not open here is the bridge's to refuse.
func TestRawSessionGetsItsRequests(t *testing.T) {
	t.Parallel()
	a := &fwdAdapter{scriptAdapter: &scriptAdapter{}}
	e := startEditor(t, a)
	e.initialize()
	opened, _ := e.result(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
	jsonEqual(t, opened, `{"sessionId":"raw1","x-future":"kept"}`)
	res, _ := e.result(e.call("session/prompt", map[string]any{"sessionId": "raw1", "prompt": []any{}}))
	jsonEqual(t, res, `{"stopReason":"end_turn","x-future":"kept"}`)
	e.result(e.call("session/set_mode", map[string]any{"sessionId": "raw1", "modeId": "agent-only"}))
	e.result(e.call("_vendor/ping", map[string]any{"sessionId": "raw1"}))
	e.result(e.call("_vendor/ping", map[string]any{}))
	gone, _ := e.answer(e.call("session/set_mode", map[string]any{"sessionId": "nope", "modeId": "x"}))
	if code := gone["error"].(map[string]any)["code"]; code != float64(acp.ErrResourceNotFound.Code) {
		t.Errorf("set_mode of an unknown session: code %v, want resource not found", code)
	}
	want := []string{acp.MethodSessionNew, "raw1 " + acp.MethodSessionPrompt, "raw1 " + acp.MethodSessionSetMode,
		"raw1 _vendor/ping", "_vendor/ping"}
	if !slices.Equal(a.methods(), want) {
		t.Errorf("forwarded\n got %q\nwant %q", a.methods(), want)
	}
}

// TestRawCancelledTurnAnswersCancelled: an agent that speaks ACP itself and
// answers a prompt cancelled while it ran with another stop reason
// (opencode: end_turn) or an error is answered "cancelled", as ACP
// requires of a cancelled turn; the rest of its answer is kept.
func TestRawCancelledTurnAnswersCancelled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string // the agent's answer; empty: an error
		want   string
	}{
		{"end_turn", `{"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"_meta":{"k":1}}`,
			`{"stopReason":"cancelled","usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"_meta":{"k":1}}`},
		{"cancelled", `{"stopReason":"cancelled"}`, `{"stopReason":"cancelled"}`},
		{"error", "", `{"stopReason":"cancelled"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			started := make(chan struct{}, 1)
			a := &fwdAdapter{scriptAdapter: &scriptAdapter{}, prompt: func(ctx context.Context) (json.RawMessage, error) {
				started <- struct{}{}
				<-ctx.Done()
				if tt.answer == "" {
					return nil, acp.NewError(-32603, "Internal error: aborted", nil)
				}
				return json.RawMessage(tt.answer), nil
			}}
			e := startEditor(t, a)
			e.initialize()
			e.result(e.call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}}))
			id := e.call("session/prompt", map[string]any{"sessionId": "raw1", "prompt": []any{}})
			<-started
			e.notify("session/cancel", map[string]any{"sessionId": "raw1"})
			res, _ := e.result(id)
			jsonEqual(t, res, tt.want)
		})
	}
}
