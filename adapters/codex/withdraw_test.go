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

// withdrawingServer asks for a command approval in its turn, then
// withdraws the question (serverRequest/resolved, as when Codex's own
// reviewer decides) and completes the turn without waiting for an answer.
var withdrawingServer = stubAppServer(func(_ context.Context, m stubMsg, stdout io.Writer) error {
	if m.Method == mTurnStart {
		fmt.Fprintln(stdout, `{"id":70,"method":"item/commandExecution/requestApproval","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"c1","command":"rm -rf build"}}`)
		fmt.Fprintln(stdout, `{"method":"serverRequest/resolved","params":{"threadId":"thread-1","requestId":70}}`)
		fmt.Fprintln(stdout, turnCompleted)
	}
	return nil
})

// TestWithdrawnApproval: a question Codex withdraws is withdrawn from the
// editor (its request's context ends) and the turn goes on to its end.
func TestWithdrawnApproval(t *testing.T) {
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", withdrawingServer), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	withdrawn := make(chan struct{})
	cl := &acptest.Client{Permission: func(pctx context.Context, _ acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		select {
		case <-pctx.Done():
			close(withdrawn)
			return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
		case <-ctx.Done():
			return acp.RequestPermissionResponse{}, ctx.Err()
		}
	}}
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, cl)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	select {
	case <-withdrawn:
	default:
		t.Error("the editor's question was not withdrawn")
	}
}
