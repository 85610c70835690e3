package codex

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// retryFrames are what Codex 0.169 sends when the provider answers 500 to
// every request of a turn with stream_max_retries = 2: two announced
// retries, then the failure (its error notification, then turn/completed
// failed), after a retry of its WebSocket transport. Copied from runs
// against the scripted server.
var retryFrames = []string{
	// Codex's WebSocket transport failing over to HTTP (0.169 on its
	// built-in OpenAI provider): not the provider failing.
	`{"method":"error","params":{"error":{"message":"Reconnecting... 2/5","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":404}},"additionalDetails":"unexpected status 404 Not Found: Not found: /v1/responses, url: ws://127.0.0.1:44869/v1/responses","misalignment":null},"willRetry":true,"threadId":"thread-1","turnId":"turn-1"}}`,
	`{"method":"item/agentMessage/delta","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"m1","delta":"Let me"}}`,
	`{"method":"error","params":{"error":{"message":"Reconnecting... 1/2","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":null}},"additionalDetails":"We’re currently experiencing high demand, which may cause temporary errors.","misalignment":null},"willRetry":true,"threadId":"thread-1","turnId":"turn-1"}}`,
	`{"method":"error","params":{"error":{"message":"Reconnecting... 2/2","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":null}},"additionalDetails":"We’re currently experiencing high demand, which may cause temporary errors.","misalignment":null},"willRetry":true,"threadId":"thread-1","turnId":"turn-1"}}`,
	`{"method":"error","params":{"error":{"message":"We’re currently experiencing high demand, which may cause temporary errors.","codexErrorInfo":"internalServerError","additionalDetails":null,"misalignment":null},"willRetry":false,"threadId":"thread-1","turnId":"turn-1"}}`,
	`{"method":"turn/completed","params":{"threadId":"thread-1","turn":{"id":"turn-1","status":"failed","error":{"message":"We’re currently experiencing high demand, which may cause temporary errors.","codexErrorInfo":"internalServerError","additionalDetails":null}}}}`,
}

// TestRetriesReachTheEditor: each retry Codex announces reaches the editor
// while the turn waits, as a notice for an editor that shows notices and
// as agent text of its own paragraph for one that does not, and the turn
// that Codex gives up on ends with an error naming the provider's failure
// and the retries.
func TestRetriesReachTheEditor(t *testing.T) {
	const wantErr = "codex turn failed: We’re currently experiencing high demand, which may cause temporary errors. " +
		"(internal server error; the model provider still failing after 2 retries)"
	tests := []struct {
		name    string
		caps    acp.ClientCapabilities
		notices []string
		text    string
	}{
		{name: "notices", caps: acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}},
			notices: []string{"Reconnecting... 1/2: We’re currently experiencing high demand, which may cause temporary errors.",
				"Reconnecting... 2/2: We’re currently experiencing high demand, which may cause temporary errors."},
			text: "Let me"},
		{name: "text", text: "Let me\n\n" +
			"Reconnecting... 1/2: We’re currently experiencing high demand, which may cause temporary errors.\n\n" +
			"Reconnecting... 2/2: We’re currently experiencing high demand, which may cause temporary errors.\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := stubAppServer(func(_ context.Context, m stubMsg, stdout io.Writer) error {
				if m.Method == mTurnStart {
					for _, f := range retryFrames {
						fmt.Fprintln(stdout, f)
					}
				}
				return nil
			})
			var mu sync.Mutex
			var notices []string
			var text strings.Builder
			cl := &acptest.Client{Caps: tt.caps, Update: func(_ context.Context, n acp.SessionNotification) error {
				mu.Lock()
				defer mu.Unlock()
				switch u := n.Update; {
				case u.Notice != nil:
					if u.Notice.Severity != acp.NoticeSeverityWarning || u.Notice.Description == nil {
						t.Errorf("notice %s", mustJSON(u.Notice))
					} else {
						notices = append(notices, u.Notice.Title+": "+*u.Notice.Description)
					}
				case u.AgentMessageChunk != nil:
					text.WriteString(u.AgentMessageChunk.Content.Text.Text)
				}
				return nil
			}}
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
			if err == nil || err.Error() != wantErr {
				t.Errorf("Prompt = %q, %v\nwant error %q", stop, err, wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(notices, "\n") != strings.Join(tt.notices, "\n") {
				t.Errorf("notices %q\nwant %q", notices, tt.notices)
			}
			if text.String() != tt.text {
				t.Errorf("agent text %q\nwant %q", text.String(), tt.text)
			}
		})
	}
}

func TestErrorKind(t *testing.T) {
	tests := []struct{ info, want string }{
		{`"internalServerError"`, "internal server error"},
		{`{"responseStreamDisconnected":{"httpStatusCode":502}}`, "response stream disconnected, HTTP 502"},
		{`{"httpConnectionFailed":{"httpStatusCode":null}}`, "http connection failed"},
		{`"other"`, ""},
		{``, ""},
		{`{"a":{},"b":{}}`, ""},
	}
	for _, tt := range tests {
		if got := errorKind([]byte(tt.info)); got != tt.want {
			t.Errorf("errorKind(%s) = %q, want %q", tt.info, got, tt.want)
		}
	}
}
