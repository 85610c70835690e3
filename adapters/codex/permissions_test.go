package codex

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestPermissionsRequest: Codex's request for more access goes to the
// editor, and the chosen grant (here: for the session) goes back.
func TestPermissionsRequest(t *testing.T) {
	answered := make(chan string, 1)
	server := stubAppServer(func(_ context.Context, m stubMsg, stdout io.Writer) error {
		switch {
		case m.answer(): // the answer to our request
			answered <- string(m.Result)
			fmt.Fprintln(stdout, turnCompleted)
		case m.Method == mTurnStart:
			fmt.Fprintln(stdout, `{"id":9,"method":"item/permissions/requestApproval","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"p1","cwd":"/project","reason":"fetch a package","permissions":{"network":{"enabled":true},"fileSystem":null}}}`)
		}
		return nil
	})
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) { return proc.InProcess("codex", server), nil }})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var asked acp.RequestPermissionRequest
	cl := &acptest.Client{Permission: func(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		asked = r
		return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optGrantSession)}, nil
	}}
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, cl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}}); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	if asked.ToolCall.Title == nil || *asked.ToolCall.Title != "Grant Codex more access: fetch a package" {
		t.Errorf("asked %s", mustJSON(asked))
	}
	select {
	case got := <-answered:
		if want := `{"permissions":{"network":{"enabled":true},"fileSystem":null},"scope":"session"}`; got != want {
			t.Errorf("answer %s, want %s", got, want)
		}
	default:
		t.Error("no answer reached Codex")
	}
}
