package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// realCLIWorld returns the real CLI (claudeenv.Require: $CLAUDE_BIN, else
// the one make claude-cli installs) and fresh home, tmp and project
// directories for it. Without a CLI the test skips, or fails under CI.
func realCLIWorld(t *testing.T) (bin, home, tmp, project string) {
	bin = claudeenv.Require(t)
	root := t.TempDir()
	home, tmp, project = filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "project")
	for _, d := range []string{home, tmp, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, home, tmp, project
}

// realCLI starts the adapter on the real Claude Code CLI (realCLIWorld)
// against the scripted model server playing a recording scenario.
func realCLI(t *testing.T, scenario string, client acp.Client) acp.Session {
	bin, home, tmp, project := realCLIWorld(t)
	sc, err := modelserver.Load(filepath.Join(scenarioDir, scenario+".json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:        bin,
		Env:         modelserver.ClaudeEnv(url, home, tmp),
		Logger:      testLogger(t),
		CancelGrace: 20 * time.Second,
		StopGrace:   2 * time.Second,
		ModelCache:  filepath.Join(home, "models.json"),
	})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, client)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collector gathers agent text and tool call statuses.
type collector struct {
	mu     sync.Mutex
	text   strings.Builder
	status map[acp.ToolCallID]acp.ToolCallStatus
	asked  int
	onText func()
}

func (c *collector) client() *acptest.Client {
	return &acptest.Client{
		Update: func(_ context.Context, n acp.SessionNotification) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			u := n.Update
			switch {
			case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
				c.text.WriteString(u.AgentMessageChunk.Content.Text.Text)
				if c.onText != nil {
					c.onText()
				}
			case u.ToolCall != nil:
				c.status[u.ToolCall.ToolCallID] = u.ToolCall.Status
			case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
				c.status[u.ToolCallUpdate.ToolCallID] = *u.ToolCallUpdate.Status
			}
			return nil
		},
		Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			c.mu.Lock()
			c.asked++
			c.mu.Unlock()
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
		},
	}
}

func TestRealCLIBashPermission(t *testing.T) {
	c := &collector{status: map[acp.ToolCallID]acp.ToolCallStatus{}}
	s := realCLI(t, "bash_allow", c.client())
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	stop, err := s.Prompt(ctx, prompt("Create a build directory and show me what is in the project."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked != 1 || c.status["toolu_bash_allow_01"] != acp.ToolCallStatusCompleted {
		t.Errorf("asked %d times, tool status %q", c.asked, c.status["toolu_bash_allow_01"])
	}
	if !strings.Contains(c.text.String(), "now exists") {
		t.Errorf("text = %q", c.text.String())
	}
}

func TestRealCLIInterrupt(t *testing.T) {
	c := &collector{status: map[acp.ToolCallID]acp.ToolCallStatus{}}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	c.onText = pcancel
	s := realCLI(t, "interrupt_streaming", c.client())
	stop, err := s.Prompt(pctx, prompt("Explain the project layout in detail."))
	if err != nil || stop != acp.StopReasonCancelled {
		t.Fatalf("cancelled Prompt = %q, %v", stop, err)
	}
	c.mu.Lock()
	c.onText = nil
	c.mu.Unlock()
	stop, err = s.Prompt(ctx, prompt("Never mind. Just say OK."))
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after the interrupt = %q, %v", stop, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
