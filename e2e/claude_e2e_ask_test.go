//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	sdk "github.com/coder/acp-go-sdk"
)

// askClient is the e2e editor plus form elicitation, which the Go SDK
// serves through its (unstable) UnstableCreateElicitation method.
type askClient struct {
	*acpclient.Editor
	mu    sync.Mutex
	forms []sdk.UnstableCreateElicitationRequest // guarded by mu
	fill  func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
}

func (c *askClient) UnstableCreateElicitation(_ context.Context, r sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.forms = append(c.forms, r)
	c.mu.Unlock()
	return c.fill(r), nil
}

// startAsk is start for an editor that advertises form elicitation and
// terminal output in _meta.
func (w *e2eWorld) startAsk(client *askClient) *e2eBridge {
	w.t.Helper()
	return w.launch(client, client.Editor, sdk.ClientCapabilities{
		Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}},
		Meta:        map[string]any{"terminal_output": true},
	})
}

// TestClaudeE2EAskUserQuestion: the model's AskUserQuestion becomes one
// elicitation form (a field per question, the multi-select one an array),
// and the answers the editor gives reach the model in the tool's result.
func TestClaudeE2EAskUserQuestion(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "ask_question")
	client := &askClient{Editor: &acpclient.Editor{}, fill: func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
		return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{
			Action: "accept", Content: map[string]any{"q1": "PostgreSQL", "q2": []any{"Tracing"}}}}
	}}
	b := w.startAsk(client)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sid := b.newSession(ctx).SessionId
	b.mustPrompt(ctx, sid, "Set up the new service.", sdk.StopReasonEndTurn)

	client.mu.Lock()
	forms := client.forms
	client.mu.Unlock()
	if len(forms) != 1 || forms[0].Form == nil {
		t.Fatalf("got %d elicitation requests, want one form", len(forms))
	}
	props := forms[0].Form.RequestedSchema.Properties
	q2, _ := props["q2"].(map[string]any)
	if len(props) != 2 || q2["type"] != "array" {
		t.Errorf("form fields %v, want q1 and q2 (q2 a multi-select array)", props)
	}
	reqs := w.mainRequestsText()
	last := reqs[len(reqs)-1]
	for _, want := range []string{`Which database should the service use?\"=\"PostgreSQL\"`, `Which features do you want?\"=\"Tracing\"`} {
		if !strings.Contains(last, want) {
			t.Errorf("the model's last request lacks %s:\n%s", want, bridgeproc.Tail(last, 800))
		}
	}
}

// TestClaudeE2ELiveBash: a slow command's output reaches an SDK client
// that advertised terminal_output while the command runs.
func TestClaudeE2ELiveBash(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "bash_live")
	client := &askClient{Editor: &acpclient.Editor{}}
	client.SetPermit(acpclient.Choose(sdk.PermissionOptionKindAllowOnce))
	b := w.startAsk(client)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sid := b.newSession(ctx).SessionId
	mark, _ := client.Mark()
	b.mustPrompt(ctx, sid, "Print three lines slowly.", sdk.StopReasonEndTurn)

	var chunks []string
	done := false
	for _, u := range client.UpdatesSince(mark) {
		tc := u.ToolCallUpdate
		if tc == nil || tc.ToolCallId != "toolu_e2e_live" {
			continue
		}
		if tc.Status != nil && *tc.Status == sdk.ToolCallStatusCompleted {
			done = true
		}
		if m, ok := tc.Meta["terminal_output"].(map[string]any); ok {
			if done {
				t.Errorf("terminal output after the call completed: %v", m)
			}
			chunks = append(chunks, fmt.Sprint(m["data"]))
		}
	}
	if !done || len(chunks) < 2 || strings.Join(chunks, "") != "line1\nline2\nline3\n" {
		t.Errorf("completed %v, terminal_output chunks %q: want at least 2 adding up to the three lines", done, chunks)
	}
}
