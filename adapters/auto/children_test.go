package auto_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/auto"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// kidAgent is a fakeAgent whose sessions run sub-agents (it keeps the
// client each session got, and the children cancelled) and that forks
// sessions.
type kidAgent struct {
	*fakeAgent
	mu        sync.Mutex
	clients   []acp.Client
	cancelled []acp.SessionID
	forked    []acp.SessionID
}

var _ acp.Forker = (*kidAgent)(nil)

func (k *kidAgent) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	s, err := k.fakeAgent.NewSession(ctx, req, c)
	k.mu.Lock()
	k.clients = append(k.clients, c)
	k.mu.Unlock()
	return kidSession{s.(*fakeSession), k}, err
}

func (k *kidAgent) ForkSession(_ context.Context, req acp.ForkSessionRequest, _ acp.Client) (acp.Session, error) {
	k.mu.Lock()
	k.forked = append(k.forked, req.SessionID)
	k.mu.Unlock()
	k.fakeAgent.mu.Lock()
	defer k.fakeAgent.mu.Unlock()
	return k.openLocked(req.SessionID + "-fork"), nil
}

type kidSession struct {
	*fakeSession
	k *kidAgent
}

var _ acp.ChildCanceller = kidSession{}

func (s kidSession) CancelChild(id acp.SessionID) bool {
	s.k.mu.Lock()
	defer s.k.mu.Unlock()
	s.k.cancelled = append(s.k.cancelled, id)
	return true
}

// kidEditor is an editor whose client makes child sessions, as the
// bridge's does; it records the updates each child sends.
type kidEditor struct {
	*editor
	mu   sync.Mutex
	sent []acp.SessionID // guarded by mu; the child of each update
}

func (e *kidEditor) Child(id acp.SessionID) acp.Client { return kidClient{e, id} }

type kidClient struct {
	*kidEditor
	id acp.SessionID
}

func (c kidClient) SessionUpdate(context.Context, acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, c.id)
	return nil
}

func (e *kidEditor) sentBy() []acp.SessionID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.SessionID(nil), e.sent...)
}

// newMultiOf is newMulti for any adapters, named as their Info says.
func newMultiOf(agents ...acp.Adapter) *auto.Adapter {
	var list []auto.Agent
	for _, ad := range agents {
		name := ad.Info().Name
		list = append(list, auto.Agent{Name: name, Title: strings.ToUpper(name),
			Start: func() (acp.Adapter, error) { return ad, nil }})
	}
	return auto.New(list, auto.Options{})
}

// TestChildrenStayWithTheirAgent: a session's agent (here one chosen
// after the first) makes child sessions through the bridge's client; the
// editor's cancel of a child reaches that agent's session, and a fork
// naming the child goes to that agent, whose fork is a new session. Once
// the session moves to another agent, the old agent's children fall
// silent. The typed agent's fork is offered at initialize.
func TestChildrenStayWithTheirAgent(t *testing.T) {
	a, b := &kidAgent{fakeAgent: &fakeAgent{name: "a"}}, &kidAgent{fakeAgent: &fakeAgent{name: "b"}}
	m := newMultiOf(a, b)
	ctx := t.Context()
	init, err := m.Initialize(ctx, json.RawMessage(`{"protocolVersion":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		AgentCapabilities struct {
			SessionCapabilities map[string]any `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	json.Unmarshal(init, &caps)
	if caps.AgentCapabilities.SessionCapabilities["fork"] == nil {
		t.Errorf("initialize %s: no sessionCapabilities.fork, though agent b forks", init)
	}
	ed := &kidEditor{editor: &editor{}}
	s, _, err := m.Open(ctx, acp.MethodSessionNew, json.RawMessage(`{"cwd":"/w","mcpServers":[]}`), ed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	choose := func(v string) {
		t.Helper()
		if _, err := s.Forward(ctx, acp.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"a-1","configId":"agent","value":"`+v+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	choose("b")
	b.mu.Lock()
	cl := b.clients[0]
	b.mu.Unlock()
	cc, ok := cl.(acp.ChildClient)
	if !ok {
		t.Fatalf("agent b's client %T makes no child sessions", cl)
	}
	kid := cc.Child("kid-b")
	_ = kid.SessionUpdate(ctx, acp.SessionNotification{SessionID: "kid-b", Update: acp.UpdateAgentText("hi")})
	if got := ed.sentBy(); !reflect.DeepEqual(got, []acp.SessionID{"kid-b"}) {
		t.Errorf("updates sent by children %v, want kid-b's", got)
	}

	if err := s.Notify(ctx, acp.MethodSessionCancel, json.RawMessage(`{"sessionId":"kid-b"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Notify(ctx, acp.MethodSessionCancel, json.RawMessage(`{"sessionId":"a-1"}`)); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	cancelled := append([]acp.SessionID(nil), b.cancelled...)
	b.mu.Unlock()
	if !reflect.DeepEqual(cancelled, []acp.SessionID{"kid-b"}) {
		t.Errorf("children cancelled %v, want kid-b only (the session's own cancel is not a child's)", cancelled)
	}

	fs, answer, err := m.Open(ctx, acp.MethodSessionFork, json.RawMessage(`{"sessionId":"kid-b","cwd":"/w","mcpServers":[]}`), ed)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	b.mu.Lock()
	forked := append([]acp.SessionID(nil), b.forked...)
	b.mu.Unlock()
	if !reflect.DeepEqual(forked, []acp.SessionID{"kid-b"}) || fs.ID() != "kid-b-fork" || currentAgent(t, answer) != "b" {
		t.Errorf("fork of kid-b went to b %v as session %s on %s; want b, kid-b-fork", forked, fs.ID(), currentAgent(t, answer))
	}

	choose("a")
	_ = kid.SessionUpdate(ctx, acp.SessionNotification{SessionID: "kid-b", Update: acp.UpdateAgentText("late")})
	if got := ed.sentBy(); len(got) != 1 {
		t.Errorf("updates sent by children %v: a child of the agent left still spoke", got)
	}
	// A cancel of that child now reaches no agent: a's session never
	// ran it (and b's, closed, took its children with it).
	if err := s.Notify(ctx, acp.MethodSessionCancel, json.RawMessage(`{"sessionId":"kid-b"}`)); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	if len(a.cancelled) != 0 {
		t.Errorf("agent a was asked to cancel %v, children of b's", a.cancelled)
	}
	a.mu.Unlock()
}
