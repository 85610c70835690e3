package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// questionFrame is Codex 0.169's item/tool/requestUserInput (as the real
// app-server sends it in plan mode): a choice that also takes an answer of
// the user's own, and a free-text question.
const questionFrame = `{"id":71,"method":"item/tool/requestUserInput","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"call-q","isBlocking":true,"questions":[` +
	`{"id":"color","header":"Color","question":"Which color?","isOther":true,"isSecret":false,"options":[{"label":"Red","description":"Warm."},{"label":"Blue","description":"Cool."}]},` +
	`{"id":"name","header":"Name","question":"What name?","isOther":false,"isSecret":false,"options":null}]}}`

// askingServer answers thread/start and turn/start; at turn/start it asks
// questionFrame, then, when withdraw is non-nil, resolves the request
// itself once withdraw is closed (the editor has the question) and
// completes the turn; otherwise it completes the turn once the answer (the
// line answering id 71, sent to replies) arrives.
func askingServer(withdraw <-chan struct{}, replies chan<- string) func(context.Context, io.Reader, io.Writer) error {
	return stubAppServer(func(ctx context.Context, m stubMsg, stdout io.Writer) error {
		switch {
		case m.answer() && string(m.ID) == "71":
			replies <- m.line
			fmt.Fprintln(stdout, turnCompleted)
		case m.Method == mTurnStart:
			fmt.Fprintln(stdout, questionFrame)
			if withdraw == nil {
				return nil
			}
			select {
			case <-withdraw:
			case <-ctx.Done():
				return errStubDone
			}
			fmt.Fprintln(stdout, `{"method":"serverRequest/resolved","params":{"threadId":"thread-1","requestId":71}}`)
			fmt.Fprintln(stdout, turnCompleted)
		}
		return nil
	})
}

func formCaps() acp.ClientCapabilities {
	return acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
}

func askTurn(t *testing.T, server func(context.Context, io.Reader, io.Writer) error, cl acp.Client) {
	t.Helper()
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) { return proc.InProcess("codex", server), nil }})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, cl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
}

// TestQuestionForm: an editor with form elicitation gets the model's
// questions as one form (a choice with an extra free-text field for an
// answer of the user's own, and a free-text field), and its answers reach
// Codex in request_user_input's answer shape.
func TestQuestionForm(t *testing.T) {
	tests := []struct {
		name    string
		resp    acp.CreateElicitationResponse
		answers string
	}{
		{"choice and text", acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: map[string]any{"color": "Blue", "name": "Ada"}},
			`{"color":{"answers":["Blue"]},"name":{"answers":["Ada"]}}`},
		{"an answer of the user's own", acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: map[string]any{"color_other": "Green", "name": "Ada"}},
			`{"color":{"answers":["Green"]},"name":{"answers":["Ada"]}}`},
		{"declined", acp.CreateElicitationResponse{Action: acp.ElicitationDecline}, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := make(chan string, 1)
			var asked acp.CreateElicitationRequest
			cl := &acptest.Client{Caps: formCaps(), Elicit: func(_ context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
				asked = req
				return tt.resp, nil
			}, Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
				t.Error("a permission request although the editor takes forms")
				return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
			}}
			askTurn(t, askingServer(nil, replies), cl)
			want := acp.ElicitationSchema{Type: "object", Required: []string{"name"}, Properties: map[string]acp.ElicitationProperty{
				"color": {Type: "string", Title: "Color", Description: "Which color?", OneOf: []acp.EnumOption{
					{Const: "Red", Title: "Red", Description: "Warm."}, {Const: "Blue", Title: "Blue", Description: "Cool."}}},
				"color_other": {Type: "string", Title: "Color (other)", Description: "An answer of your own instead of the choices above."},
				"name":        {Type: "string", Title: "Name", Description: "What name?"},
			}}
			if !reflect.DeepEqual(asked.RequestedSchema, want) || asked.ToolCallID != "call-q" || asked.Mode != acp.ElicitationModeForm {
				t.Errorf("form = %s\nwant schema %s for tool call call-q", mustJSON(asked), mustJSON(want))
			}
			var reply struct {
				Result struct {
					Answers json.RawMessage `json:"answers"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(<-replies), &reply); err != nil || !equalJSON(reply.Result.Answers, tt.answers) {
				t.Errorf("answers = %s (%v); want %s", reply.Result.Answers, err, tt.answers)
			}
		})
	}
}

// TestQuestionWithdrawn: a question Codex resolves itself is withdrawn
// from the editor (the form's or the permission request's context ends)
// and nothing is answered for it.
func TestQuestionWithdrawn(t *testing.T) {
	for _, form := range []bool{true, false} {
		t.Run(fmt.Sprintf("form=%v", form), func(t *testing.T) {
			asked, withdrawn := make(chan struct{}), make(chan struct{})
			cl := &acptest.Client{
				Elicit: func(ctx context.Context, _ acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
					close(asked)
					<-ctx.Done()
					close(withdrawn)
					return acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, nil
				},
				Permission: func(ctx context.Context, _ acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
					close(asked)
					<-ctx.Done()
					close(withdrawn)
					return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
				}}
			if form {
				cl.Caps = formCaps()
			}
			replies := make(chan string, 1)
			askTurn(t, askingServer(asked, replies), cl)
			select {
			case <-withdrawn:
			default:
				t.Error("the question was not withdrawn")
			}
			select {
			case r := <-replies:
				t.Errorf("answered a withdrawn question: %s", r)
			default:
			}
		})
	}
}

func equalJSON(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
