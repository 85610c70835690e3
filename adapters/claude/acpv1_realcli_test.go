package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
	"github.com/tidwall/gjson"
)

// realCLIWith starts the adapter on the real CLI against the scripted
// model server playing sc (JSON, with {{cwd}} and {{home}} expanded) and
// returns the adapter, its server, and the project and home directories.
func realCLIWith(t *testing.T, sc string) (*Adapter, *modelserver.Server, string, string) {
	bin, home, tmp, project := realCLIWorld(t)
	parsed, err := modelserver.Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(parsed.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	a := New(Options{
		Path:        bin,
		Env:         modelserver.ClaudeEnv(url, home, tmp),
		Logger:      testLogger(t),
		CancelGrace: 20 * time.Second,
		StopGrace:   2 * time.Second,
	})
	t.Cleanup(func() { _ = a.Close() })
	return a, srv, project, home
}

// TestRealCLIEffort checks that the effort option reaches the model: the
// CLI's Messages requests carry the level chosen before the first prompt,
// and the one chosen between turns, without a restart.
func TestRealCLIEffort(t *testing.T) {
	a, srv, project, _ := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"One."}]},{"blocks":[{"type":"text","text":"Two."}]}]}`)
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for i, level := range []string{"low", "high"} {
		opts, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{SessionID: s.ID(), ConfigID: configEffort,
			Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID(level))}})
		if err != nil {
			t.Fatal(err)
		}
		if got := opts[len(opts)-1]; got.ID != configEffort || string(got.Select.CurrentValue) != level {
			t.Errorf("options after setting %s: last is %s = %s", level, got.ID, got.Select.CurrentValue)
		}
		if stop, err := s.Prompt(ctx, prompt("turn "+level)); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v", stop, err)
		}
		reqs := srv.MainRequests()
		if len(reqs) != i+1 {
			t.Fatalf("%d model requests after turn %d", len(reqs), i+1)
		}
		want := `"output_config":{"effort":"` + level + `"}`
		if !strings.Contains(string(reqs[i].Body), want) {
			t.Errorf("request %d does not carry %s", i+1, want)
		}
	}
}

// updates collects every session update a real-CLI session sends.
type updates struct {
	mu       sync.Mutex
	list     []acp.SessionUpdate // guarded by mu
	commands chan struct{}       // if set, gets a value for each available_commands_update
}

func (u *updates) client(caps acp.ClientCapabilities) *acptest.Client {
	return &acptest.Client{Caps: caps, Update: func(_ context.Context, n acp.SessionNotification) error {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.list = append(u.list, n.Update)
		if n.Update.AvailableCommandsUpdate != nil && u.commands != nil {
			u.commands <- struct{}{}
		}
		return nil
	}}
}

func (u *updates) all() []acp.SessionUpdate {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.list)
}

// TestRealCLICommandsKeptCurrent checks that a command added to the project
// reaches the editor once the user reloads them, as the CLI only rescans
// then.
func TestRealCLICommandsKeptCurrent(t *testing.T) {
	a, _, project, _ := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"unused"}]}]}`)
	u := &updates{commands: make(chan struct{}, 4)}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, u.client(acp.ClientCapabilities{}))
	if err != nil {
		t.Fatal(err)
	}
	select { // the CLI has read its commands
	case <-u.commands:
	case <-time.After(time.Minute):
		t.Fatal("no available_commands_update from the CLI")
	}
	dir := filepath.Join(project, ".claude", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fresh.md"), []byte("---\ndescription: A fresh command\n---\nSay fresh.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if stop, err := s.Prompt(ctx, prompt("/reload-skills")); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	var lists [][]acp.AvailableCommand
	for _, up := range u.all() {
		if up.AvailableCommandsUpdate != nil {
			lists = append(lists, up.AvailableCommandsUpdate.AvailableCommands)
		}
	}
	hasFresh := func(l []acp.AvailableCommand) bool {
		return slices.ContainsFunc(l, func(c acp.AvailableCommand) bool { return c.Name == "fresh" })
	}
	if len(lists) != 2 || hasFresh(lists[0]) || !hasFresh(lists[1]) {
		t.Errorf("command lists sent: %d; want the first without /fresh and a second with it", len(lists))
	}
}

// TestRealCLITitleAndDelete checks the session_info_update of a turn
// against what the CLI stored, and that deleting the session removes its
// transcript and folders so it is no longer listed or found.
func TestRealCLITitleAndDelete(t *testing.T) {
	a, _, project, home := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"Done."}]}]}`)
	u := &updates{}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, u.client(acp.ClientCapabilities{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if stop, err := s.Prompt(ctx, prompt("Tidy   the\nREADME please")); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	// The title goes out when the prompt is sent, the time at the end of
	// the turn (with the title again only if the CLI stored another).
	var titles, times []string
	for _, up := range u.all() {
		if i := up.SessionInfoUpdate; i != nil {
			if i.Title.Present {
				titles = append(titles, i.Title.Value)
			}
			if i.UpdatedAt.Present {
				times = append(times, i.UpdatedAt.Value)
			}
		}
	}
	if !slices.Equal(titles, []string{"Tidy the README please"}) || len(times) != 1 {
		t.Fatalf("session_info_update titles %q, times %q", titles, times)
	}
	list, err := a.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &project})
	if err != nil || len(list.Sessions) != 1 || *list.Sessions[0].Title != titles[0] || *list.Sessions[0].UpdatedAt != times[0] {
		t.Fatalf("session/list = %+v, %v; want title %q and time %q", list, err, titles[0], times[0])
	}
	path, err := a.store.Find(s.ID(), project)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSession(ctx, acp.DeleteSessionRequest{SessionID: s.ID()}); !errors.Is(err, acp.ErrInvalidRequest) {
		t.Errorf("delete of the open session = %v, want invalid request", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteSession(ctx, acp.DeleteSessionRequest{SessionID: s.ID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("transcript still there: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(home, ".claude", "*", string(s.ID())+"*"))
	more, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", string(s.ID())+"*"))
	if left = append(left, more...); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
	if list, _ := a.ListSessions(ctx, acp.ListSessionsRequest{}); len(list.Sessions) != 0 {
		t.Errorf("still listed: %+v", list.Sessions)
	}
}

// TestRealCLICompaction runs /compact on the real CLI for an editor that
// advertises compaction: in_progress, the summary the model wrote, then
// completed, and the context meter at the size after.
func TestRealCLICompaction(t *testing.T) {
	// The CLI asks the model for the summary (twice in 2.1.329) with an
	// instruction to answer in text only.
	a, _, project, _ := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"One."}]},
		{"match":"Respond with TEXT ONLY","times":2,"blocks":[{"type":"text","text":"The user asked for one word."}]}]}`)
	u := &updates{}
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project},
		u.client(acp.ClientCapabilities{Session: &acp.ClientSessionCapabilities{Compaction: &acp.CompactionCapabilities{}}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for _, p := range []string{"Say one word.", "/compact"} {
		if stop, err := s.Prompt(ctx, prompt(p)); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v", p, stop, err)
		}
	}
	var seen []string
	var summary string
	var lastUsage *acp.UsageUpdate
	for _, up := range u.all() {
		switch {
		case up.CompactionUpdate != nil:
			seen = append(seen, string(up.CompactionUpdate.Status))
		case up.CompactionSummaryChunk != nil:
			seen = append(seen, "summary")
			summary += up.CompactionSummaryChunk.Content.Text.Text
		case up.UsageUpdate != nil:
			lastUsage = up.UsageUpdate
		}
	}
	if want := []string{"in_progress", "summary", "completed"}; !slices.Equal(seen, want) {
		t.Errorf("compaction updates %q, want %q", seen, want)
	}
	if !strings.Contains(summary, "The user asked for one word.") || strings.Contains(summary, "Continue the conversation") {
		t.Errorf("summary = %q", summary)
	}
	if lastUsage == nil || lastUsage.Used == 0 {
		t.Errorf("last usage_update = %+v", lastUsage)
	}

}

// TestRealCLIPromptContent sends an image, an embedded text resource and a
// resource link through the real CLI and checks what reaches the model:
// the image as an image block, the resource's text as context, the link as
// a mention. (Audio is not advertised: the CLI's model API takes none.)
func TestRealCLIPromptContent(t *testing.T) {
	a, srv, project, _ := realCLIWith(t, `{"turns":[{"blocks":[{"type":"text","text":"Seen."}]}]}`)
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: project}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	notes := "file://" + filepath.Join(project, "notes.md")
	blocks := []acp.ContentBlock{
		acp.TextBlock("What is in these?"),
		{Image: &acp.ImageContent{MimeType: "image/png", Data: png}},
		{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
			Text: &acp.TextResourceContents{URI: notes, Text: "remember the milk"}}}},
		{ResourceLink: &acp.ResourceLink{Name: "main.go", URI: "file://" + filepath.Join(project, "main.go")}},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: blocks}); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	// The CLI folds its reminders into the same user message.
	msgs := gjson.GetBytes(reqs[0].Body, "messages").Raw
	for _, want := range []string{
		`"type":"image"`, png,
		`<context ref=\"` + notes + `\">\nremember the milk\n</context>`,
		`[@main.go](file://` + filepath.Join(project, "main.go") + `)`,
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the model's messages lack %s", want)
		}
	}
}
