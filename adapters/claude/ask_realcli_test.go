package claude

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// realCLIServer is realCLI for an end-to-end scenario
// (scenarios/e2e/NAME.json), returning the model server too, so a test can
// read what the CLI sent the model.
func realCLIServer(t *testing.T, scenario, mode string, client acp.Client) (acp.Session, *modelserver.Server) {
	bin, home, tmp, project := realCLIWorld(t)
	sc, err := modelserver.Load(filepath.Join(scenarioDir, "e2e", scenario+".json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:           bin,
		PermissionMode: mode,
		Env:            modelserver.ClaudeEnv(url, home, tmp),
		Logger:         testLogger(t),
		CancelGrace:    20 * time.Second,
		StopGrace:      2 * time.Second,
	})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, client)
	if err != nil {
		t.Fatal(err)
	}
	return s, srv
}

// toolResultText is the text the model got back for the last tool use: the
// last user message of the last main request.
func toolResultText(srv *modelserver.Server) string {
	reqs := srv.MainRequests()
	if len(reqs) == 0 {
		return ""
	}
	return reqs[len(reqs)-1].LastUserText()
}

// TestRealCLIAskUserQuestion runs AskUserQuestion on the real CLI and checks
// that what the editor answered (or that it declined) reaches the model in
// the tool's result.
func TestRealCLIAskUserQuestion(t *testing.T) {
	form := acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
	tests := []struct {
		name   string
		mode   string // the session's permission mode
		caps   acp.ClientCapabilities
		elicit func(acp.CreateElicitationRequest) acp.CreateElicitationResponse
		choose func(acp.RequestPermissionRequest) acp.PermissionOptionID
		want   []string // in the tool result the model gets
		status acp.ToolCallStatus
	}{
		{
			name: "form accepted", caps: form,
			elicit: func(acp.CreateElicitationRequest) acp.CreateElicitationResponse {
				return acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: map[string]any{
					"q1": "SQLite", "q2": []any{"Metrics", "Audit log"}}}
			},
			want:   []string{`"Which database should the service use?"="SQLite"`, `"Which features do you want?"="Metrics, Audit log"`},
			status: acp.ToolCallStatusCompleted,
		},
		{
			name: "form declined", caps: form,
			elicit: func(acp.CreateElicitationRequest) acp.CreateElicitationResponse {
				return acp.CreateElicitationResponse{Action: acp.ElicitationDecline}
			},
			want:   []string{"declined to answer"},
			status: acp.ToolCallStatusFailed,
		},
		{
			// Questions go to the user even when tools run unasked.
			name: "bypass mode", mode: "bypassPermissions",
			choose: func(r acp.RequestPermissionRequest) acp.PermissionOptionID {
				return r.Options[1].OptionID // SQLite, then Tracing
			},
			want:   []string{`"Which database should the service use?"="SQLite"`, `"Which features do you want?"="Tracing"`},
			status: acp.ToolCallStatusCompleted,
		},
		{
			name: "permission fallback",
			choose: func(r acp.RequestPermissionRequest) acp.PermissionOptionID {
				return r.Options[0].OptionID // PostgreSQL, then Metrics
			},
			want:   []string{`"Which database should the service use?"="PostgreSQL"`, `"Which features do you want?"="Metrics"`},
			status: acp.ToolCallStatusCompleted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var forms []acp.CreateElicitationRequest
			var perms []acp.RequestPermissionRequest
			status := map[acp.ToolCallID]acp.ToolCallStatus{}
			client := &acptest.Client{
				Caps: tt.caps,
				Update: func(_ context.Context, n acp.SessionNotification) error {
					mu.Lock()
					defer mu.Unlock()
					if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil {
						status[u.ToolCallID] = *u.Status
					}
					return nil
				},
				Elicit: func(_ context.Context, r acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
					mu.Lock()
					forms = append(forms, r)
					mu.Unlock()
					return tt.elicit(r), nil
				},
				Permission: func(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
					mu.Lock()
					perms = append(perms, r)
					mu.Unlock()
					if tt.choose == nil {
						return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
					}
					return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(tt.choose(r))}, nil
				},
			}
			s, srv := realCLIServer(t, "ask_question", tt.mode, client)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			stop, err := s.Prompt(ctx, prompt("Set up the new service."))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			got := toolResultText(srv)
			t.Logf("tool result: %s", got)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the model got %q, want it to contain %q", got, w)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.elicit != nil && len(forms) != 1 {
				t.Errorf("%d elicitation forms, want 1", len(forms))
			}
			if tt.choose != nil && len(perms) != 2 {
				t.Errorf("%d permission questions, want one per question (2)", len(perms))
			}
			if status["toolu_e2e_ask"] != tt.status {
				t.Errorf("tool call status %q, want %q", status["toolu_e2e_ask"], tt.status)
			}
		})
	}
}

// TestRealCLIAskUserQuestionCancel cancels the prompt while the form is
// open: the editor's form is withdrawn, the turn ends cancelled, and the
// session takes the next prompt.
func TestRealCLIAskUserQuestionCancel(t *testing.T) {
	asked := make(chan struct{})
	withdrawn := make(chan struct{})
	client := &acptest.Client{
		Caps: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}},
		Elicit: func(ctx context.Context, _ acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
			close(asked)
			<-ctx.Done()
			close(withdrawn)
			return acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
		},
	}
	s, _ := realCLIServer(t, "ask_question", "", client)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pctx, pcancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-asked:
			pcancel()
		case <-ctx.Done():
		}
	}()
	stop, err := s.Prompt(pctx, prompt("Set up the new service."))
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q, %v", stop, err)
	}
	select {
	case <-withdrawn:
	default:
		t.Error("the form was not withdrawn when the turn ended")
	}
	stop, err = s.Prompt(ctx, prompt("Never mind."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after the cancel = %q, %v", stop, err)
	}
}
