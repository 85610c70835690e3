package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// The bridge's Adapter, Loader and Lister contracts, spelled out here because
// this package may not import the bridge.
var _ interface {
	Info() acp.AgentInfo
	NewSession(context.Context, acp.NewSessionRequest, acp.Client) (acp.Session, error)
	LoadSession(context.Context, acp.LoadSessionRequest, acp.Client) (acp.Session, error)
	ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error)
	Close() error
} = (*Adapter)(nil)

// seen collects what an editor was sent.
type seen struct {
	mu          sync.Mutex
	text        strings.Builder // agent message chunks
	userText    strings.Builder // user message chunks
	kinds       map[acp.ToolCallID]acp.ToolKind
	status      map[acp.ToolCallID]acp.ToolCallStatus
	diffs       map[acp.ToolCallID]string // a diff's path
	plan        []acp.PlanEntry
	permissions []acp.RequestPermissionRequest
	firstKind   string
}

func newSeen() *seen {
	return &seen{kinds: map[acp.ToolCallID]acp.ToolKind{}, status: map[acp.ToolCallID]acp.ToolCallStatus{},
		diffs: map[acp.ToolCallID]string{}}
}

func (s *seen) update(_ context.Context, n acp.SessionNotification) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := n.Update
	if s.firstKind == "" {
		s.firstKind = u.Kind()
	}
	switch {
	case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
		s.text.WriteString(u.AgentMessageChunk.Content.Text.Text)
	case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
		s.userText.WriteString(u.UserMessageChunk.Content.Text.Text)
	case u.ToolCall != nil:
		s.kinds[u.ToolCall.ToolCallID] = u.ToolCall.Kind
		s.status[u.ToolCall.ToolCallID] = u.ToolCall.Status
	case u.ToolCallUpdate != nil:
		id := u.ToolCallUpdate.ToolCallID
		if u.ToolCallUpdate.Kind != nil {
			s.kinds[id] = *u.ToolCallUpdate.Kind
		}
		if u.ToolCallUpdate.Status != nil {
			s.status[id] = *u.ToolCallUpdate.Status
		}
		for _, c := range u.ToolCallUpdate.Content {
			if c.Diff != nil {
				s.diffs[id] = c.Diff.Path
			}
		}
	case u.Plan != nil:
		s.plan = u.Plan.Entries
	}
	return nil
}

func (s *seen) allow(_ context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	s.mu.Lock()
	s.permissions = append(s.permissions, r)
	s.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected("allow_once")}, nil
}

func loadDemo(t *testing.T) (*Adapter, *recording.Recording) {
	t.Helper()
	rec, err := recording.Open(filepath.Join("..", "..", "fixtures", "claude", "demo.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Stream(rec, demoOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a, rec
}

func demoOptions(t *testing.T) Options {
	return claudeOptions(t, "22222222-2222-4222-8222-222222222222", 100*time.Millisecond)
}

const demoPrompt = "Add a hello-world command to this Go project under cmd/hello."

func TestReplayPlaysTheRecording(t *testing.T) {
	t.Run("streamed from the file", func(t *testing.T) {
		a, rec := loadDemo(t)
		testPlaysDemo(t, a, rec.Meta["cwd"])
	})
	t.Run("held in memory", func(t *testing.T) {
		fx, err := recording.Load(filepath.Join("..", "..", "fixtures", "claude", "demo.txtar"))
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(fx, demoOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		testPlaysDemo(t, a, fx.Meta["cwd"])
	})
}

func testPlaysDemo(t *testing.T, a *Adapter, cwd string) {
	if title := a.Info().Title; !strings.Contains(title, "replay") || !strings.Contains(title, "demo.txtar") {
		t.Errorf("Info().Title = %q, want it to name the replayed fixture", title)
	}
	s := newSeen()
	sess, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: cwd},
		&acptest.Client{Update: s.update, Permission: s.allow})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(),
		Prompt: []acp.ContentBlock{acp.TextBlock(demoPrompt)}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !strings.Contains(s.text.String(), "Run it with `go run ./cmd/hello`.") {
		t.Errorf("agent text = %q, want the recorded summary", s.text.String())
	}
	wantTools := map[acp.ToolCallID]acp.ToolKind{"toolu_demo_mkdir": acp.ToolKindExecute, "toolu_demo_write": acp.ToolKindEdit}
	for id, kind := range wantTools {
		if s.kinds[id] != kind || s.status[id] != acp.ToolCallStatusCompleted {
			t.Errorf("tool call %s: kind %q status %q, want %q completed", id, s.kinds[id], s.status[id], kind)
		}
	}
	if len(s.kinds) != len(wantTools) {
		t.Errorf("tool calls %v, want only %v (TodoWrite is a plan)", s.kinds, wantTools)
	}
	if p := s.diffs["toolu_demo_write"]; p != "/home/user/project/cmd/hello/main.go" {
		t.Errorf("Write diff path = %q", p)
	}
	var asked []string
	for _, p := range s.permissions {
		asked = append(asked, string(p.ToolCall.ToolCallID)+" "+*p.ToolCall.Title)
	}
	want := []string{"toolu_demo_mkdir mkdir -p cmd/hello && ls -R cmd", "toolu_demo_write Write cmd/hello/main.go"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("permissions asked = %q, want %q", asked, want)
	}
	if len(s.plan) != 3 {
		t.Fatalf("plan = %+v, want 3 entries", s.plan)
	}
	for _, e := range s.plan {
		if e.Status != acp.PlanEntryStatusCompleted {
			t.Errorf("final plan entry %q is %q, want completed", e.Content, e.Status)
		}
	}
}

func TestListAndLoad(t *testing.T) {
	a, fx := loadDemo(t)
	recorded := acp.SessionID(fx.Meta["session"])
	list, err := a.ListSessions(t.Context(), acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("ListSessions = %+v, %v", list, err)
	}
	info := list.Sessions[0]
	if info.SessionID != recorded || info.Cwd != fx.Meta["cwd"] || info.Title == nil || *info.Title != demoPrompt {
		t.Errorf("listed %+v", info)
	}
	other := "/elsewhere"
	if l, _ := a.ListSessions(t.Context(), acp.ListSessionsRequest{Cwd: &other}); len(l.Sessions) != 0 {
		t.Errorf("ListSessions for another cwd = %+v, want none", l.Sessions)
	}

	_, err = a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: "nope", Cwd: fx.Meta["cwd"]}, &acptest.Client{})
	if !errors.Is(err, acp.ErrResourceNotFound) {
		t.Errorf("LoadSession(unknown) = %v, want resource not found", err)
	}

	s := newSeen()
	client := &acptest.Client{Update: s.update, Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		t.Error("a history replay asked for permission")
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
	}}
	sess, err := a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: recorded, Cwd: fx.Meta["cwd"]}, client)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	if s.firstKind != "user_message_chunk" || s.userText.String() != demoPrompt {
		t.Errorf("history starts with %q, user text %q", s.firstKind, s.userText.String())
	}
	if !strings.Contains(s.text.String(), "Run it with") || s.status["toolu_demo_write"] != acp.ToolCallStatusCompleted {
		t.Errorf("history text %q, write status %q", s.text.String(), s.status["toolu_demo_write"])
	}
	if len(s.plan) != 3 {
		t.Errorf("history plan = %+v", s.plan)
	}
	s.mu.Unlock()
	if sess.ID() != recorded {
		t.Errorf("loaded session id %q, want %q", sess.ID(), recorded)
	}

	// The loaded session serves further prompts.
	client.Permission = s.allow
	stop, err := sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(),
		Prompt: []acp.ContentBlock{acp.TextBlock("once more")}})
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after load = %q, %v", stop, err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewRejectsOtherAdapters(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, data string }{
		{"codex.txtar", "-- meta --\nadapter: codex\n-- agent --\n> {}\n"},
		{"noscript.txtar", "-- meta --\nadapter: claude\n"},
		{"emptyscript.txtar", "-- meta --\nadapter: claude\n-- agent --\n# nothing\n"},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		fx, err := recording.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(fx, Options{}); err == nil || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("New(%s) = %v, want an error naming the file", tt.name, err)
		}
		rec, err := recording.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Stream(rec, Options{}); err == nil || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("Stream(%s) = %v, want an error naming the file", tt.name, err)
		}
	}
}

// The script is read from the file by each session: a file that changed or
// went away after New fails the next session's prompt with an error naming
// it.
func TestFileChangedAfterOpen(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "claude", "text.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "text.txtar")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Stream(rec, claudeOptions(t, "", 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	promptOnce := func() error {
		sess, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: rec.Meta["cwd"]}, &acptest.Client{})
		if err != nil {
			return err
		}
		defer sess.Close()
		stop, err := sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(),
			Prompt: []acp.ContentBlock{acp.TextBlock("hi")}})
		if err == nil && stop != acp.StopReasonEndTurn {
			t.Errorf("Prompt = %q, want end_turn", stop)
		}
		return err
	}
	if err := promptOnce(); err != nil {
		t.Fatalf("Prompt before the change: %v", err)
	}
	if err := os.WriteFile(path, append(src, "\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	err = promptOnce()
	t.Logf("after the change: %v", err)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed") {
		t.Errorf("Prompt after the file changed = %v, want an error naming it", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := promptOnce(); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Prompt after the file went away = %v, want an error naming it", err)
	}
}

func TestPromptsBeyondTheRecording(t *testing.T) {
	fx, err := recording.Open(filepath.Join("..", "..", "fixtures", "claude", "text.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Stream(fx, claudeOptions(t, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := newSeen()
	sess, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: fx.Meta["cwd"]}, &acptest.Client{Update: s.update})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Say hello in one short sentence.", "And again?"} {
		stop, err := sess.Prompt(t.Context(), acp.PromptRequest{SessionID: sess.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v", text, stop, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !strings.Contains(s.text.String(), "no more turns") {
		t.Errorf("text = %q, want the replay's end notice after the recorded turn", s.text.String())
	}
}
