package auto_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/auto"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// fakeAgent is an agent served through the typed contract that lists and
// loads its stored sessions and records what it is asked.
type fakeAgent struct {
	name   string
	stored []acp.SessionID

	mu      sync.Mutex
	n       int
	loaded  []acp.SessionID
	prompts []acp.SessionID
	open    map[acp.SessionID]bool
}

var (
	_ acp.Lister = (*fakeAgent)(nil)
	_ acp.Loader = (*fakeAgent)(nil)
)

func (f *fakeAgent) Info() acp.AgentInfo { return acp.AgentInfo{Name: f.name} }
func (f *fakeAgent) Close() error        { return nil }

func (f *fakeAgent) NewSession(context.Context, acp.NewSessionRequest, acp.Client) (acp.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return f.openLocked(acp.SessionID(fmt.Sprintf("%s-%d", f.name, f.n))), nil
}

func (f *fakeAgent) openLocked(id acp.SessionID) *fakeSession {
	if f.open == nil {
		f.open = map[acp.SessionID]bool{}
	}
	f.open[id] = true
	return &fakeSession{f: f, id: id}
}

func (f *fakeAgent) LoadSession(_ context.Context, req acp.LoadSessionRequest, _ acp.Client) (acp.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loaded = append(f.loaded, req.SessionID)
	return f.openLocked(req.SessionID), nil
}

func (f *fakeAgent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	var res acp.ListSessionsResponse
	for _, id := range f.stored {
		res.Sessions = append(res.Sessions, acp.SessionInfo{SessionID: id, Cwd: "/w"})
	}
	return res, nil
}

func (f *fakeAgent) isOpen(id acp.SessionID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open[id]
}

type fakeSession struct {
	f  *fakeAgent
	id acp.SessionID
}

func (s *fakeSession) ID() acp.SessionID { return s.id }
func (s *fakeSession) State() acp.SessionState {
	return acp.SessionState{}
}
func (s *fakeSession) Prompt(_ context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.prompts = append(s.f.prompts, req.SessionID)
	return acp.StopReasonEndTurn, nil
}
func (s *fakeSession) SetMode(context.Context, acp.SessionModeID) error { return nil }
func (s *fakeSession) SetConfigOption(context.Context, acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	return nil, nil
}
func (s *fakeSession) Close() error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	delete(s.f.open, s.id)
	return nil
}

// editor is the bridge's client as the Adapter sees it; only what the
// Adapter calls is implemented.
type editor struct {
	acp.RawClient
	mu      sync.Mutex
	updates []acp.SessionUpdate
}

func (e *editor) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	return nil
}

func (e *editor) Capabilities() acp.ClientCapabilities { return acp.ClientCapabilities{} }

func newMulti(agents ...*fakeAgent) *auto.Adapter {
	var list []auto.Agent
	for _, f := range agents {
		list = append(list, auto.Agent{Name: f.name, Title: strings.ToUpper(f.name),
			Version: func() string { return "1.0" }, Start: func() (acp.Adapter, error) { return f, nil }})
	}
	return auto.New(list, auto.Options{})
}

func currentAgent(t *testing.T, answer json.RawMessage) string {
	t.Helper()
	var res struct {
		ConfigOptions []acp.SessionConfigOption `json:"configOptions"`
	}
	if err := json.Unmarshal(answer, &res); err != nil || len(res.ConfigOptions) == 0 || res.ConfigOptions[0].ID != auto.OptionID {
		t.Fatalf("no agent option first in %s (%v)", answer, err)
	}
	return string(res.ConfigOptions[0].Select.CurrentValue)
}

// TestListMergesAndLoadRoutes: session/list holds every agent's sessions,
// and a load goes to the agent that listed the session.
func TestListMergesAndLoadRoutes(t *testing.T) {
	a, b := &fakeAgent{name: "a", stored: []acp.SessionID{"a-old"}}, &fakeAgent{name: "b", stored: []acp.SessionID{"b-old"}}
	m := newMulti(a, b)
	ed := &editor{}
	ctx := t.Context()
	if _, err := m.Initialize(ctx, json.RawMessage(`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	raw, err := m.Forward(ctx, acp.MethodSessionList, json.RawMessage(`{}`), ed)
	if err != nil {
		t.Fatal(err)
	}
	var list acp.ListSessionsResponse
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	var ids []acp.SessionID
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionID)
	}
	if want := []acp.SessionID{"a-old", "b-old"}; !reflect.DeepEqual(ids, want) || list.NextCursor != nil {
		t.Errorf("list %v (cursor %v), want %v", ids, list.NextCursor, want)
	}
	s, answer, err := m.Open(ctx, acp.MethodSessionLoad, json.RawMessage(`{"sessionId":"b-old","cwd":"/w","mcpServers":[]}`), ed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(b.loaded) != 1 || len(a.loaded) != 0 || s.ID() != "b-old" {
		t.Errorf("load went to a %v, b %v, session %s; want b, b-old", a.loaded, b.loaded, s.ID())
	}
	if got := currentAgent(t, answer); got != "b" {
		t.Errorf("loaded session's agent option says %q, want b", got)
	}
}

// TestSwitchReplacesTheSession: choosing another agent closes the old
// agent's session, keeps the session's id, says the conversation starts
// anew, and the next turn is the new agent's; an unknown agent is
// invalid params and changes nothing.
func TestSwitchReplacesTheSession(t *testing.T) {
	a, b := &fakeAgent{name: "a"}, &fakeAgent{name: "b"}
	m := newMulti(a, b)
	ed := &editor{}
	ctx := t.Context()
	s, answer, err := m.Open(ctx, acp.MethodSessionNew, json.RawMessage(`{"cwd":"/w","mcpServers":[]}`), ed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := currentAgent(t, answer); got != "a" || s.ID() != "a-1" {
		t.Fatalf("new session %s runs %q, want a-1 on a", s.ID(), got)
	}
	set := func(v string) (json.RawMessage, error) {
		return s.Forward(ctx, acp.MethodSessionSetConfigOption,
			json.RawMessage(`{"sessionId":"a-1","configId":"agent","value":"`+v+`"}`))
	}
	_, err = set("zzz")
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !a.isOpen("a-1") {
		t.Errorf("unknown agent: %v, a's session open %v; want invalid params, still open", err, a.isOpen("a-1"))
	}
	res, err := set("b")
	if err != nil {
		t.Fatal(err)
	}
	if got := currentAgent(t, res); got != "b" || a.isOpen("a-1") || !b.isOpen("b-1") {
		t.Errorf("after the switch: option %q, a-1 open %v, b-1 open %v", got, a.isOpen("a-1"), b.isOpen("b-1"))
	}
	said := ""
	for _, u := range ed.updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			said += u.AgentMessageChunk.Content.Text.Text
		}
	}
	if !strings.Contains(said, "Switched to B") || !strings.Contains(said, "starts anew") {
		t.Errorf("the switch said %q", said)
	}
	if _, err := s.Forward(ctx, acp.MethodSessionPrompt, json.RawMessage(`{"sessionId":"a-1","prompt":[{"type":"text","text":"hi"}]}`)); err != nil {
		t.Fatal(err)
	}
	if len(a.prompts) != 0 || !reflect.DeepEqual(b.prompts, []acp.SessionID{"b-1"}) || s.ID() != "a-1" {
		t.Errorf("prompts a %v, b %v, session id %s; want the turn on b-1, the editor's id a-1", a.prompts, b.prompts, s.ID())
	}
}

// TestNoAgent: session/new says how to install the agents.
func TestNoAgent(t *testing.T) {
	m := auto.New(nil, auto.Options{Install: []auto.Install{{Title: "Foo", Command: "npm install -g foo"}}})
	_, _, err := m.Open(t.Context(), acp.MethodSessionNew, json.RawMessage(`{"cwd":"/w","mcpServers":[]}`), &editor{})
	if err == nil || !strings.Contains(err.Error(), "Foo: npm install -g foo") {
		t.Errorf("session/new with no agent: %v", err)
	}
}
