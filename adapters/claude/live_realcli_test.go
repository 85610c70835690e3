package claude

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestRealCLILiveBash runs a slow command on the real CLI and checks that
// its output reaches the editor while it runs: at least two content
// updates before the tool call completes, and terminal_output chunks that
// add up to the whole output.
func TestRealCLILiveBash(t *testing.T) {
	const id = "toolu_e2e_live"
	var mu sync.Mutex
	var live []string // command output shown before completion
	var chunks strings.Builder
	completed := false
	client := &acptest.Client{
		Caps: acp.ClientCapabilities{Meta: map[string]any{"terminal_output": true}},
		Update: func(_ context.Context, n acp.SessionNotification) error {
			u := n.Update.ToolCallUpdate
			if u == nil || u.ToolCallID != id {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if u.Status != nil && *u.Status == acp.ToolCallStatusCompleted {
				completed = true
				return nil
			}
			if completed {
				t.Errorf("update after completion: %+v", u)
			}
			if len(u.Content) > 0 && u.Content[0].Content != nil && u.Content[0].Content.Text != nil {
				if text := u.Content[0].Content.Text.Text; strings.HasPrefix(text, "```console") {
					live = append(live, text)
				}
			}
			if m, ok := u.Meta["terminal_output"].(map[string]any); ok {
				chunks.WriteString(m["data"].(string))
			}
			return nil
		},
		Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
		},
	}
	s, _ := realCLIServer(t, "bash_live", "", client)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	stop, err := s.Prompt(ctx, prompt("Print three lines slowly."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !completed {
		t.Fatal("the tool call never completed")
	}
	if len(live) < 2 {
		t.Fatalf("%d live output updates before the command ended (%q), want at least 2", len(live), live)
	}
	if !strings.Contains(live[0], "line1") || strings.Contains(live[0], "line3") {
		t.Errorf("first live update %q: want line1 without line3 (output while running)", live[0])
	}
	if got := chunks.String(); got != "line1\nline2\nline3\n" {
		t.Errorf("terminal_output chunks add up to %q", got)
	}
}

// TestRealCLILiveBashBackground runs a slow command in the background on
// the real CLI, in a turn that outlasts it, and checks that its output
// keeps reaching the editor after the call's result (which comes at once)
// until its task ends.
func TestRealCLILiveBashBackground(t *testing.T) {
	const id = "toolu_e2e_bg"
	var mu sync.Mutex
	var live []string
	var chunks strings.Builder
	completed := false
	afterResult := 0
	client := &acptest.Client{
		Caps: acp.ClientCapabilities{Meta: map[string]any{"terminal_output": true}},
		Update: func(_ context.Context, n acp.SessionNotification) error {
			u := n.Update.ToolCallUpdate
			if u == nil || u.ToolCallID != id {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if u.Status != nil && *u.Status == acp.ToolCallStatusCompleted {
				completed = true
			}
			if m, ok := u.Meta["terminal_output"].(map[string]any); ok {
				// The first line may be read before the CLI reports the
				// call's result (it comes at once, but under load after
				// the command's first echo); what makes the background
				// case is output that goes on after the result.
				if completed {
					afterResult++
				}
				chunks.WriteString(m["data"].(string))
				live = append(live, u.Content[0].Content.Text.Text)
			}
			return nil
		},
		Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
		},
	}
	s, _ := realCLIServer(t, "bash_background", "", client)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	stop, err := s.Prompt(ctx, prompt("Print three lines in the background."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(live) < 2 {
		t.Fatalf("%d live output updates (%q), want at least 2", len(live), live)
	}
	if afterResult == 0 {
		t.Errorf("no output after the call's result (%q): the background command was not followed", live)
	}
	// The CLI appends an exit line to a background task's output file as
	// the task ends; whether the tail still reads it before the task's end
	// is reported depends on timing, so it may or may not be there.
	if got := withoutExitLine(chunks.String()); got != "bg1\nbg2\nbg3\n" {
		t.Errorf("terminal_output chunks add up to %q", chunks.String())
	}
	last := live[len(live)-1]
	if want := "```console\nbg1\nbg2\nbg3\n```"; withoutExitLine(strings.TrimSuffix(last, "```"))+"```" != want {
		t.Errorf("last content %q, want %q", last, want)
	}
}

// withoutExitLine drops the "\n[exited with code 0]\n" the CLI writes at the
// end of a finished background task's output.
func withoutExitLine(s string) string {
	return strings.TrimSuffix(s, "\n[exited with code 0]\n")
}
