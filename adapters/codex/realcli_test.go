package codex

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// realScenario is the model side of every real-Codex scenario below; each
// prompt picks its turns by content, so the scenarios share one server and
// one app-server. A follow-up request after a tool call that no turn
// matches gets the exhausted reply, which ends the turn.
func realScenario() *modelserver.Scenario {
	return &modelserver.Scenario{
		Turns: []modelserver.Turn{
			{Match: "say hi", Blocks: []modelserver.Block{modelserver.Thinking("Thinking about hi."), modelserver.Text("Hello from the scripted model.")}},
			{Match: "run allowed", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"touch allowed-file && echo allowed-done","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
			{Match: "allowed-done", Blocks: []modelserver.Block{modelserver.Text("The command ran.")}},
			{Match: "run a slow command", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"for i in 1 2 3; do echo tick$i; sleep 0.3; done","sandbox_permissions":"require_escalated","justification":"count"}`)}}},
			{Match: "always allow", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"touch always-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
			{Match: "once more", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"touch always-file","sandbox_permissions":"require_escalated","justification":"make it again"}`)}}},
			{Match: "run declined", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"touch declined-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
			{Match: "patch it", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RolePatch,
				Input: json.RawMessage(`{"patch":"*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch\n"}`)}}},
			{Match: "stream slowly", DeltaDelayMS: 20, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
				Text: strings.Repeat("slow words ", 200), Deltas: 200}}},
			{Match: "stream until killed", DeltaDelayMS: 20, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
				Text: strings.Repeat("doomed words ", 200), Deltas: 200}}},
			{Match: "ask then cancel", Blocks: []modelserver.Block{{Type: modelserver.BlockToolUse, Role: modelserver.RoleShell,
				Input: json.RawMessage(`{"command":"touch cancelled-file","sandbox_permissions":"require_escalated","justification":"make a file"}`)}}},
			{Match: "ask me", Blocks: []modelserver.Block{modelserver.ToolUse("", "request_user_input", map[string]any{"questions": []any{
				map[string]any{"id": "color", "header": "Color", "question": "Which color?", "options": []any{
					map[string]any{"label": "Red", "description": "Warm."}, map[string]any{"label": "Blue", "description": "Cool."}}}}})}},
			{Match: "Blue", Blocks: []modelserver.Block{modelserver.Text("You chose blue.")}},
			{Match: "ask in a form", Blocks: []modelserver.Block{modelserver.ToolUse("", "request_user_input", map[string]any{"questions": []any{
				map[string]any{"id": "size", "header": "Size", "question": "Which size?", "options": []any{
					map[string]any{"label": "Small", "description": "Less."}, map[string]any{"label": "Large", "description": "More."}}}}})}},
			{Match: "Large", Blocks: []modelserver.Block{modelserver.Text("You chose large.")}},
			{Match: "after the crash", Blocks: []modelserver.Block{modelserver.Text("Back after the crash.")}},
		},
		Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Done.")}},
	}
}

// recorder collects a session's updates and answers its permission
// requests with a fixed option.
type recorder struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	asked   []acp.RequestPermissionRequest
	first   chan struct{} // closed at the first agent_message_chunk
	once    sync.Once
}

func newRecorder() *recorder { return &recorder{first: make(chan struct{})} }

func (r *recorder) client(answer acp.PermissionOptionID) *acptest.Client {
	return &acptest.Client{
		Update: func(_ context.Context, n acp.SessionNotification) error {
			r.mu.Lock()
			r.updates = append(r.updates, n.Update)
			r.mu.Unlock()
			if n.Update.AgentMessageChunk != nil {
				r.once.Do(func() { close(r.first) })
			}
			return nil
		},
		Permission: func(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			r.mu.Lock()
			r.asked = append(r.asked, req)
			r.mu.Unlock()
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(answer)}, nil
		},
	}
}

func (r *recorder) text(thought bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, u := range r.updates {
		c := u.AgentMessageChunk
		if thought {
			c = u.AgentThoughtChunk
		}
		if c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// tool returns the tool_call and the last tool_call_update of the one tool
// call of the turn.
func (r *recorder) tool(t *testing.T) (*acp.ToolCall, *acp.ToolCallUpdate) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var call *acp.ToolCall
	var last *acp.ToolCallUpdate
	for _, u := range r.updates {
		if u.ToolCall != nil {
			call = u.ToolCall
		}
		if u.ToolCallUpdate != nil {
			last = u.ToolCallUpdate
		}
	}
	if call == nil || last == nil {
		t.Fatalf("no tool call and update in %d updates", len(r.updates))
	}
	return call, last
}

func TestRealCodex(t *testing.T) {
	bin := codexenv.Require(t)
	srv := modelserver.New(realScenario(), modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: bin, Env: env.Vars, Mode: ModeReadOnly, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond,
		SpareCwd: env.Dir})
	defer func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	open := func(t *testing.T, answer acp.PermissionOptionID) (*Session, *recorder) {
		t.Helper()
		rec := newRecorder()
		s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, rec.client(answer))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s.(*Session), rec
	}
	prompt := func(s *Session, text string) (acp.StopReason, error) {
		return s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	}

	var textThread acp.SessionID
	t.Run("text", func(t *testing.T) {
		s, rec := open(t, "")
		textThread = s.ID()
		stop, err := prompt(s, "say hi")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if got := rec.text(false); got != "Hello from the scripted model." {
			t.Errorf("agent text = %q", got)
		}
		if got := rec.text(true); got != "Thinking about hi." {
			t.Errorf("thought = %q", got)
		}
	})

	t.Run("command allowed", func(t *testing.T) {
		s, rec := open(t, optAccept)
		stop, err := prompt(s, "run allowed")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if len(rec.asked) != 1 {
			t.Fatalf("asked %d times, want 1", len(rec.asked))
		}
		if ids := optionIDs(rec.asked[0]); !strings.Contains(ids, optDecline) || !strings.Contains(ids, optAccept) {
			t.Errorf("options = %s; want accept and decline among them", ids)
		}
		call, last := rec.tool(t)
		if call.Kind != acp.ToolKindExecute || call.Title != "touch allowed-file && echo allowed-done" {
			t.Errorf("tool call = %+v; want execute titled with the command", call)
		}
		if *last.Status != acp.ToolCallStatusCompleted {
			t.Errorf("last status = %s, want completed", *last.Status)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "allowed-file")); err != nil {
			t.Errorf("the allowed command did not run: %v", err)
		}
		if got := rec.text(false); got != "The command ran." {
			t.Errorf("agent text = %q", got)
		}
	})

	t.Run("live command output", func(t *testing.T) {
		s, rec := open(t, optAccept)
		if stop, err := prompt(s, "run a slow command"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		// The output arrives while the command runs: an in-progress
		// update shows a line before the last is printed. (Codex 0.169
		// sends no delta for what the command prints before its start
		// settles, tick1 here: that shows with the completed update.)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var live, done bool
		for _, u := range rec.updates {
			tu := u.ToolCallUpdate
			if tu == nil || tu.Status == nil {
				continue
			}
			text := ""
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Text != nil {
					text += c.Content.Text.Text
				}
			}
			switch {
			case *tu.Status == acp.ToolCallStatusInProgress && strings.Contains(text, "tick") && !strings.Contains(text, "tick3"):
				live = !done
			case *tu.Status == acp.ToolCallStatusCompleted:
				done = true
				if !strings.Contains(text, "tick1\ntick2\ntick3") {
					t.Errorf("completed update shows %q; want the whole output", text)
				}
			}
		}
		if !live || !done {
			t.Errorf("live output before completion: %v, completed: %v; updates %s", live, done, mustJSON(rec.updates))
		}
	})

	t.Run("command allowed always", func(t *testing.T) {
		s, rec := open(t, optAmendment)
		for _, text := range []string{"always allow", "once more"} {
			if stop, err := prompt(s, text); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt(%q) = %q, %v; want end_turn", text, stop, err)
			}
		}
		if len(rec.asked) != 1 {
			t.Errorf("asked %d times; want once: the amendment allows the same command after", len(rec.asked))
		}
		_, last := rec.tool(t)
		if *last.Status != acp.ToolCallStatusCompleted {
			t.Errorf("the second run ended %s, want completed", *last.Status)
		}
	})

	t.Run("command declined", func(t *testing.T) {
		s, rec := open(t, optDecline)
		stop, err := prompt(s, "run declined")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn (decline goes on with the turn)", stop, err)
		}
		_, last := rec.tool(t)
		if *last.Status != acp.ToolCallStatusFailed {
			t.Errorf("last status = %s, want failed", *last.Status)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "declined-file")); err == nil {
			t.Error("the declined command ran")
		}
		if got := rec.text(false); got != "Done." {
			t.Errorf("agent text = %q; want the model's answer after the decline", got)
		}
	})

	t.Run("patch", func(t *testing.T) {
		s, rec := open(t, optAccept)
		stop, err := prompt(s, "patch it")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		call, last := rec.tool(t)
		want := filepath.Join(env.Dir, "notes.md")
		if call.Kind != acp.ToolKindEdit || len(call.Content) != 1 || call.Content[0].Diff == nil ||
			call.Content[0].Diff.Path != want || call.Content[0].Diff.NewText != "hello\n" || call.Content[0].Diff.OldText != nil {
			t.Errorf("tool call = %s; want an edit with the new file's diff", mustJSON(call))
		}
		if *last.Status != acp.ToolCallStatusCompleted {
			t.Errorf("last status = %s, want completed", *last.Status)
		}
		if b, err := os.ReadFile(want); err != nil || string(b) != "hello\n" {
			t.Errorf("notes.md = %q, %v", b, err)
		}
	})

	t.Run("model and reasoning effort", func(t *testing.T) {
		s, _ := open(t, "")
		opts := s.State().ConfigOptions
		if !hasValue(opts, cfgModel, "gpt-5.6-sol") || !hasValue(opts, cfgEffort, "high") || current(opts, cfgModel) != codexenv.Model {
			t.Fatalf("config options = %s; want Codex's models, %s current, and its efforts", mustJSON(opts), codexenv.Model)
		}
		for _, set := range [][2]string{{cfgModel, "gpt-5.6-sol"}, {cfgEffort, "high"}} {
			v := acp.SessionConfigValueID(set[1])
			if _, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{ConfigID: acp.SessionConfigID(set[0]), Value: acp.ConfigOptionValue{ID: &v}}); err != nil {
				t.Fatalf("set %s: %v", set[0], err)
			}
		}
		before := len(srv.MainRequests())
		if stop, err := prompt(s, "which model"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v", stop, err)
		}
		reqs := srv.MainRequests()
		if len(reqs) <= before {
			for _, r := range srv.Requests() {
				t.Logf("%s %s %s %.300s", r.Kind, r.Method, r.Path, r.Body)
			}
			t.Fatal("no model request")
		}
		var body struct {
			Model     string `json:"model"`
			Reasoning struct {
				Effort string `json:"effort"`
			} `json:"reasoning"`
		}
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || body.Model != "gpt-5.6-sol" || body.Reasoning.Effort != "high" {
			t.Errorf("the turn asked for model %q, effort %q (%v); want gpt-5.6-sol, high", body.Model, body.Reasoning.Effort, err)
		}
	})

	t.Run("a question from the model", func(t *testing.T) {
		s, rec := open(t, "1") // the second choice
		// Codex refuses request_user_input outside its plan mode.
		plan := acp.SessionConfigValueID("plan")
		if _, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{ConfigID: cfgCollab, Value: acp.ConfigOptionValue{ID: &plan}}); err != nil {
			t.Fatal(err)
		}
		if stop, err := prompt(s, "ask me"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if len(rec.asked) != 1 || rec.asked[0].ToolCall.Title == nil || *rec.asked[0].ToolCall.Title != "Color: Which color?" ||
			optionIDs(rec.asked[0]) != "0,1,skip" {
			for _, r := range srv.Requests() {
				if b := string(r.Body); strings.Contains(b, "request_user_input") && strings.Contains(b, "function_call_output") {
					t.Logf("%.600s", b[strings.LastIndex(b, "function_call_output")-200:])
				}
			}
			t.Fatalf("asked %s; want the question with its two choices and skip", mustJSON(rec.asked))
		}
		if got := rec.text(false); got != "You chose blue." {
			t.Errorf("agent text = %q; want the model's answer to the choice", got)
		}
	})

	t.Run("a question from the model, as a form", func(t *testing.T) {
		var forms []acp.CreateElicitationRequest
		rec := newRecorder()
		cl := rec.client("")
		cl.Caps = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}
		cl.Elicit = func(_ context.Context, req acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
			forms = append(forms, req)
			return acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: map[string]any{"size": "Large"}}, nil
		}
		s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, cl)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		plan := acp.SessionConfigValueID("plan")
		if _, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{ConfigID: cfgCollab, Value: acp.ConfigOptionValue{ID: &plan}}); err != nil {
			t.Fatal(err)
		}
		if stop, err := s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("ask in a form")}}); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
		}
		if len(forms) != 1 || len(forms[0].RequestedSchema.Properties["size"].OneOf) != 2 || len(rec.asked) != 0 {
			t.Fatalf("forms %s, permission requests %d; want one form with the question's two choices", mustJSON(forms), len(rec.asked))
		}
		if got := rec.text(false); got != "You chose large." {
			t.Errorf("agent text = %q; want the model's answer to the form", got)
		}
	})

	t.Run("cancel while streaming", func(t *testing.T) {
		s, rec := open(t, "")
		pctx, pcancel := context.WithCancel(ctx)
		defer pcancel()
		go func() {
			select {
			case <-rec.first:
				pcancel()
			case <-pctx.Done():
			}
		}()
		stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("stream slowly")}})
		if err != nil || stop != acp.StopReasonCancelled {
			t.Fatalf("Prompt = %q, %v; want cancelled", stop, err)
		}
		if got := rec.text(false); len(got) >= len(strings.Repeat("slow words ", 200)) {
			t.Errorf("the whole stream arrived (%d bytes): the cancel did not stop it", len(got))
		}
	})

	t.Run("cancel while a permission is pending", func(t *testing.T) {
		asked := make(chan struct{})
		cl := &acptest.Client{Permission: func(ctx context.Context, _ acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			close(asked)
			<-ctx.Done() // the editor answers when the bridge withdraws the question
			return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
		}}
		s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, cl)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pctx, pcancel := context.WithCancel(ctx)
		defer pcancel()
		go func() {
			select {
			case <-asked:
				pcancel()
			case <-pctx.Done():
			}
		}()
		start := time.Now()
		stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("ask then cancel")}})
		if err != nil || stop != acp.StopReasonCancelled {
			t.Fatalf("Prompt = %q, %v; want cancelled", stop, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("cancel took %v", d)
		}
		if _, err := os.Stat(filepath.Join(env.Dir, "cancelled-file")); err == nil {
			t.Error("the command ran although its permission was cancelled")
		}
		// The thread goes on after the cancel.
		stop, err = s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("say hi")}})
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt after the cancel = %q, %v; want end_turn", stop, err)
		}
	})

	t.Run("app-server killed mid-turn", func(t *testing.T) {
		s, rec := open(t, "")
		go func() {
			select {
			case <-rec.first:
				a.mu.Lock()
				pid := a.srv.p.Pid()
				a.mu.Unlock()
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			case <-ctx.Done():
			}
		}()
		stop, err := prompt(s, "stream until killed")
		if err == nil || !strings.Contains(err.Error(), "app-server ended") {
			t.Fatalf("Prompt = %q, %v; want an error saying the app-server ended", stop, err)
		}
		stop, err = prompt(s, "after the crash")
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt after the crash = %q, %v; want end_turn", stop, err)
		}
		if got := rec.text(false); !strings.HasSuffix(got, "Back after the crash.") {
			t.Errorf("agent text = %q", got)
		}
	})
	t.Run("load, resume and list in another app-server", func(t *testing.T) {
		if textThread == "" {
			t.Fatal("the text scenario opened no session to load")
		}
		b := New(Options{Path: bin, Env: env.Vars, Mode: ModeReadOnly, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond})
		defer b.Close()
		cwd := env.Dir
		list, err := b.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &cwd})
		if err != nil {
			t.Fatal(err)
		}
		var listed bool
		for _, info := range list.Sessions {
			if info.SessionID == textThread {
				listed = info.Cwd == env.Dir && info.Title != nil && *info.Title == "say hi"
			}
		}
		if !listed {
			t.Errorf("session/list = %s; want %s with its cwd and first prompt as title", mustJSON(list), textThread)
		}
		rec := newRecorder()
		s, err := b.LoadSession(ctx, acp.LoadSessionRequest{SessionID: textThread, Cwd: env.Dir}, rec.client(""))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var got []string
		for _, u := range rec.updates {
			switch {
			case u.UserMessageChunk != nil:
				got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
			default:
				got = append(got, summary(u))
			}
		}
		if want := "user: say hi|thought: Thinking about hi.|message: Hello from the scripted model."; strings.Join(got, "|") != want {
			t.Errorf("replayed history = %q, want %q", strings.Join(got, "|"), want)
		}
		if _, err := b.ResumeSession(ctx, acp.ResumeSessionRequest{SessionID: "00000000-0000-7000-8000-000000000000", Cwd: env.Dir}, rec.client("")); !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("resuming an unknown thread: %v; want resource not found", err)
		}
	})

	t.Run("an unused spare thread is not listed", func(t *testing.T) {
		open(t, "") // leaves a spare for env.Dir behind
		a.mu.Lock()
		sp := a.spare
		a.mu.Unlock()
		if sp == nil {
			t.Fatal("no spare thread after session/new")
		}
		<-sp.done
		if sp.err != nil {
			t.Fatal(sp.err)
		}
		cwd := env.Dir
		list, err := a.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &cwd})
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range list.Sessions {
			if string(info.SessionID) == sp.res.Thread.ID {
				t.Errorf("session/list shows the spare thread %s nobody prompted", info.SessionID)
			}
		}
	})

	t.Run("delete", func(t *testing.T) {
		s, _ := open(t, "")
		if stop, err := prompt(s, "say hi"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v", stop, err)
		}
		id := s.ID()
		if err := a.DeleteSession(ctx, acp.DeleteSessionRequest{SessionID: id}); err == nil {
			t.Error("deleting a thread a session still has open succeeded")
		}
		s.Close()
		if err := a.DeleteSession(ctx, acp.DeleteSessionRequest{SessionID: id}); err != nil {
			t.Fatalf("DeleteSession = %v", err)
		}
		cwd := env.Dir
		list, err := a.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &cwd})
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range list.Sessions {
			if info.SessionID == id {
				t.Errorf("session/list still lists the deleted thread %s", id)
			}
		}
		if _, err := a.ResumeSession(ctx, acp.ResumeSessionRequest{SessionID: id, Cwd: env.Dir}, newRecorder().client("")); !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("resuming the deleted thread: %v; want resource not found", err)
		}
		if err := a.DeleteSession(ctx, acp.DeleteSessionRequest{SessionID: id}); !errors.Is(err, acp.ErrResourceNotFound) {
			t.Errorf("deleting it again: %v; want resource not found", err)
		}
	})
}

func current(opts []acp.SessionConfigOption, id acp.SessionConfigID) string {
	for _, o := range opts {
		if o.ID == id && o.Select != nil {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}

func optionIDs(req acp.RequestPermissionRequest) string {
	var ids []string
	for _, o := range req.Options {
		ids = append(ids, string(o.OptionID))
	}
	return strings.Join(ids, ",")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRealCodexNotLoggedIn: with no credentials for the OpenAI provider,
// opening a session is answered auth-required (-32000) with how to log in.
func TestRealCodexNotLoggedIn(t *testing.T) {
	bin := codexenv.Require(t)
	root := t.TempDir()
	home := filepath.Join(root, "codex-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: bin, Env: []string{"HOME=" + root, "CODEX_HOME=" + home, "OPENAI_API_KEY=", "CODEX_API_KEY="},
		Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: root}, &acptest.Client{})
	if !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "codex login") {
		t.Fatalf("NewSession = %v; want auth required saying how to log in", err)
	}
}

// TestRealCodexMCPServers: the editor's MCP servers reach Codex through
// thread/start's config, which it takes (it reports starting the server).
func TestRealCodexMCPServers(t *testing.T) {
	bin := codexenv.Require(t)
	srv := modelserver.New(&modelserver.Scenario{}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var once sync.Once
	a := New(Options{Path: bin, Env: env.Vars, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond,
		Trace: func(toAgent bool, line []byte) {
			if !toAgent && strings.Contains(string(line), "mcpServer/startupStatus/updated") && strings.Contains(string(line), "editor-tools") {
				once.Do(func() { close(started) })
			}
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	extra := filepath.Join(env.Dir, "..", "extra")
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir, AdditionalDirectories: []string{extra},
		McpServers: []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "editor-tools", Command: "true"}}}}, &acptest.Client{})
	if err != nil {
		t.Fatalf("NewSession with an MCP server and an extra directory: %v", err)
	}
	defer s.Close()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("Codex never reported the editor's MCP server")
	}
}
