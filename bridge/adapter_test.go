package bridge_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// scriptAdapter is a scriptable in-memory adapter for the bridge's own tests.
// Each prompt runs the session's turn function, which emits through the
// session's Client.
type scriptAdapter struct {
	turn     func(ctx context.Context, s *scriptSession, req acp.PromptRequest) (acp.StopReason, error)
	commands []acp.AvailableCommand
	// startup, if set, runs inside NewSession before it returns (updates it
	// sends must be held until the answer is written).
	startup func(s *scriptSession)
	history []acp.SessionUpdate // replayed by LoadSession

	n      atomic.Int64
	mu     sync.Mutex
	closed []acp.SessionID // guarded by mu
}

func (a *scriptAdapter) Info() acp.AgentInfo {
	return acp.AgentInfo{Name: "script", Title: "Script agent", Version: "1",
		Prompt: acp.PromptCapabilities{Image: true, EmbeddedContext: true}}
}

func (a *scriptAdapter) NewSession(_ context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	s := a.session(acp.SessionID(fmt.Sprintf("s%d", a.n.Add(1))), c)
	if a.startup != nil {
		a.startup(s)
	}
	return s, nil
}

func (a *scriptAdapter) session(id acp.SessionID, c acp.Client) *scriptSession {
	return &scriptSession{a: a, id: id, c: c, mode: "default", model: "small"}
}

func (a *scriptAdapter) Close() error { return nil }

func (a *scriptAdapter) closedSessions() []acp.SessionID {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]acp.SessionID(nil), a.closed...)
}

// loadingAdapter adds load, resume and list.
type loadingAdapter struct{ *scriptAdapter }

func (a loadingAdapter) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	if req.SessionID != "stored" {
		return nil, fmt.Errorf("%w: no stored session %q", acp.ErrResourceNotFound, req.SessionID)
	}
	s := a.session(req.SessionID, c)
	for _, u := range a.history {
		if err := c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: u}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (a loadingAdapter) ResumeSession(_ context.Context, req acp.ResumeSessionRequest, c acp.Client) (acp.Session, error) {
	if req.SessionID != "stored" {
		return nil, fmt.Errorf("%w: no stored session %q", acp.ErrResourceNotFound, req.SessionID)
	}
	return a.session(req.SessionID, c), nil
}

func (a loadingAdapter) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{{SessionID: "stored", Cwd: "/tmp", Title: acp.Ptr("A stored session")}}}, nil
}

// authAdapter needs a login before sessions.
type authAdapter struct {
	*scriptAdapter
	mu     sync.Mutex
	authed bool
}

func (a *authAdapter) Info() acp.AgentInfo {
	i := a.scriptAdapter.Info()
	i.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{ID: "login", Name: "Log in"}}}
	return i
}

func (a *authAdapter) Authenticate(context.Context, acp.AuthenticateRequest) error {
	a.mu.Lock()
	a.authed = true
	a.mu.Unlock()
	return nil
}

func (a *authAdapter) Logout(context.Context) error {
	a.mu.Lock()
	a.authed = false
	a.mu.Unlock()
	return nil
}

func (a *authAdapter) Authenticated() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.authed
}

type scriptSession struct {
	a  *scriptAdapter
	id acp.SessionID
	c  acp.Client

	mu    sync.Mutex
	mode  acp.SessionModeID        // guarded by mu
	model acp.SessionConfigValueID // guarded by mu
}

func (s *scriptSession) ID() acp.SessionID { return s.id }

func (s *scriptSession) State() acp.SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return acp.SessionState{
		Modes: &acp.SessionModeState{CurrentModeID: s.mode, AvailableModes: []acp.SessionMode{
			{ID: "default", Name: "Default"}, {ID: "plan", Name: "Plan"},
		}},
		ConfigOptions: s.options(),
		Commands:      s.a.commands,
	}
}

// options is called with mu held.
func (s *scriptSession) options() []acp.SessionConfigOption {
	mode, model := acp.SessionConfigOptionCategoryMode, acp.SessionConfigOptionCategoryModel
	return []acp.SessionConfigOption{
		{ID: "mode", Name: "Mode", Category: &mode, Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(s.mode),
			Options: acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
				{Value: "default", Name: "Default"}, {Value: "plan", Name: "Plan"}}}}},
		{ID: "model", Name: "Model", Category: &model, Select: &acp.SessionConfigSelect{
			CurrentValue: s.model,
			Options: acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
				{Value: "small", Name: "Small"}, {Value: "large", Name: "Large"}}}}},
	}
}

func (s *scriptSession) Prompt(ctx context.Context, req acp.PromptRequest) (acp.StopReason, error) {
	if s.a.turn == nil {
		return acp.StopReasonEndTurn, nil
	}
	return s.a.turn(ctx, s, req)
}

func (s *scriptSession) SetMode(ctx context.Context, mode acp.SessionModeID) error {
	s.mu.Lock()
	s.mode = mode
	opts := s.options()
	s.mu.Unlock()
	s.say(ctx, acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: mode}})
	s.say(ctx, acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
	return nil
}

func (s *scriptSession) SetConfigOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	s.mu.Lock()
	switch req.ConfigID {
	case "mode":
		s.mode = acp.SessionModeID(*req.Value.ID)
	case "model":
		s.model = *req.Value.ID
	}
	opts := s.options()
	s.mu.Unlock()
	s.say(ctx, acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
	return opts, nil
}

func (s *scriptSession) Close() error {
	s.a.mu.Lock()
	s.a.closed = append(s.a.closed, s.id)
	s.a.mu.Unlock()
	return nil
}

func (s *scriptSession) say(ctx context.Context, u acp.SessionUpdate) error {
	return s.c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.id, Update: u})
}
