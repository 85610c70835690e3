package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// transcriptDir holds session transcripts recorded from the real CLI
// (go run ./cmd/dev/record -scenario NAME -transcripts fixtures/claude/transcripts).
const transcriptDir = "../../fixtures/claude/transcripts"

// recordedCwd is the working directory recordings are normalized to.
const recordedCwd = "/home/user/project"

// launches records the command lines of the CLI processes an adapter
// started. Each stand-in answers initialize when answer is set and then
// reads its stdin until it is closed.
type launches struct {
	answer bool

	mu    sync.Mutex
	specs []proc.Spec
}

func (l *launches) launch(_ context.Context, spec proc.Spec) (proc.Process, error) {
	l.mu.Lock()
	l.specs = append(l.specs, spec)
	l.mu.Unlock()
	return proc.InProcess("claude", func(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !l.answer || gjson.GetBytes(line, "request.subtype").String() != "initialize" {
				continue
			}
			resp, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
				"subtype": "success", "request_id": gjson.GetBytes(line, "request_id").String(),
				"response": map[string]any{"commands": []any{}, "models": []any{}}}})
			if _, err := stdout.Write(append(resp, '\n')); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

func (l *launches) args() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out [][]string
	for _, s := range l.specs {
		out = append(out, s.Args)
	}
	return out
}

// storeSession puts a transcript where the CLI keeps the session's file
// (under config/projects) and returns its session id.
func storeSession(t *testing.T, config, cwd string, data []byte) acp.SessionID {
	t.Helper()
	id := ""
	for _, line := range strings.Split(string(data), "\n") {
		if id = gjson.Get(line, "sessionId").String(); id != "" {
			break
		}
	}
	if id == "" {
		t.Fatal("the transcript names no sessionId")
	}
	dir := filepath.Join(config, "projects", transcripts.ProjectDir(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return acp.SessionID(id)
}

// updateRecorder is a client that records every session update.
func updateRecorder(rec *transcript) *acptest.Client {
	return &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		rec.add("update", n.Update)
		return nil
	}}
}

// TestLoadRecordedTranscripts loads each transcript recorded from the real
// CLI and compares the replayed updates with testdata/load/NAME.want
// (-update rewrites it). The session then starts its CLI with --resume.
func TestLoadRecordedTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in %s: %v", transcriptDir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			config := t.TempDir()
			id := storeSession(t, config, recordedCwd, data)
			l := &launches{}
			a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: l.launch, Logger: testLogger(t),
				ModelWait: -1}) // the stand-in lists no models: nothing to wait for
			defer a.Close()
			rec := &transcript{}
			c := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
				if n.SessionID != id {
					t.Errorf("update for session %q, want %q", n.SessionID, id)
				}
				rec.add("update", n.Update)
				return nil
			}}
			s, err := a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
			if err != nil {
				t.Fatal(err)
			}
			got := rec.format(t) // before the CLI starts, which sends its own updates
			if s.ID() != id {
				t.Errorf("session id %s, want %s", s.ID(), id)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			compareFile(t, filepath.Join("testdata", "load", name+".want"), got)
			if args := l.args(); len(args) != 1 || !slices.Contains(args[0], "--resume="+string(id)) ||
				slices.ContainsFunc(args[0], func(s string) bool { return strings.HasPrefix(s, "--session-id") }) {
				t.Errorf("CLI command lines %q, want one with --resume=%s", args, id)
			}
		})
	}
}

// TestLoadMatchesLiveTurn checks the replay against the live translation of
// the same recording: every tool call ends the same way, with the same
// content, and the agent's text is the same.
func TestLoadMatchesLiveTurn(t *testing.T) {
	for _, name := range []string{"bash_allow", "edit_write", "todo_plan", "thinking", "bash_deny"} {
		t.Run(name, func(t *testing.T) {
			live := recordedUpdates(t, name)
			replayed := readWant(t, filepath.Join("testdata", "load", name+".want"))
			lv, rv := summarize(live), summarize(replayed)
			if lv.text != rv.text || lv.thought != rv.thought {
				t.Errorf("agent text differs:\nlive     %q / %q\nreplayed %q / %q", lv.text, lv.thought, rv.text, rv.thought)
			}
			if !equalJSON(lv.tools, rv.tools) || !equalJSON(lv.plans, rv.plans) {
				t.Errorf("tool calls or plans differ:\nlive     %s\n%s\nreplayed %s\n%s", lv.tools, lv.plans, rv.tools, rv.plans)
			}
			if len(rv.user) == 0 {
				t.Errorf("no user message replayed")
			}
		})
	}
}

// recordedUpdates returns the updates of a recording of the real CLI: those
// its want section shows the bridge sending the editor.
func recordedUpdates(t *testing.T, name string) []acp.SessionUpdate {
	t.Helper()
	fx, err := recording.Load(filepath.Join(recordedDir, name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var out []acp.SessionUpdate
	for _, it := range wantTranscript(t, fx) {
		raw, ok := it["update"].(json.RawMessage)
		if !ok {
			continue
		}
		var u acp.SessionUpdate
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatalf("%s: %v", fx.Path, err)
		}
		out = append(out, u)
	}
	return out
}

// readWant reads the session updates of a transcript file.
func readWant(t *testing.T, path string) []acp.SessionUpdate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var out []acp.SessionUpdate
	for {
		var item struct {
			Update *acp.SessionUpdate `json:"update"`
		}
		if err := dec.Decode(&item); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if item.Update != nil {
			out = append(out, *item.Update)
		}
	}
}

// conversation is what a user sees of a list of updates: texts, and each
// tool call's final state.
type conversation struct {
	user, text, thought string
	tools, plans        []byte
}

func summarize(us []acp.SessionUpdate) conversation {
	var c conversation
	type final struct {
		Status  acp.ToolCallStatus    `json:"status"`
		Content []acp.ToolCallContent `json:"content"`
	}
	tools := map[acp.ToolCallID]*final{}
	var plans []*acp.Plan
	for _, u := range us {
		switch {
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			c.user += u.UserMessageChunk.Content.Text.Text
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			c.text += u.AgentMessageChunk.Content.Text.Text
		case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			c.thought += u.AgentThoughtChunk.Content.Text.Text
		case u.ToolCall != nil:
			tools[u.ToolCall.ToolCallID] = &final{Status: u.ToolCall.Status, Content: u.ToolCall.Content}
		case u.ToolCallUpdate != nil:
			f := tools[u.ToolCallUpdate.ToolCallID]
			if f == nil {
				f = &final{}
				tools[u.ToolCallUpdate.ToolCallID] = f
			}
			if u.ToolCallUpdate.Status != nil {
				f.Status = *u.ToolCallUpdate.Status
			}
			if u.ToolCallUpdate.Content != nil {
				f.Content = u.ToolCallUpdate.Content
			}
		case u.Plan != nil:
			plans = append(plans, u.Plan)
		}
	}
	c.tools, _ = json.Marshal(tools)
	c.plans, _ = json.Marshal(plans)
	return c
}

func equalJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && jsonEqual(x, y)
}

func jsonEqual(x, y any) bool {
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestResumeDoesNotReplay resumes a stored session: nothing of its history
// is sent, and the CLI is started with --resume.
func TestResumeDoesNotReplay(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "bash_allow.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	id := storeSession(t, config, recordedCwd, data)
	l := &launches{answer: true}
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: l.launch, Logger: testLogger(t),
		ModelWait: -1}) // the stand-in lists no models: nothing to wait for
	defer a.Close()
	var mu sync.Mutex
	var kinds []string
	started := make(chan struct{})
	c := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		mu.Lock()
		defer mu.Unlock()
		kinds = append(kinds, n.Update.Kind())
		if n.Update.ConfigOptionUpdate != nil {
			close(started) // the last update of the CLI's start
		}
		return nil
	}}
	s, err := a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"available_commands_update", "config_option_update"}; !slices.Equal(kinds, want) {
		t.Errorf("updates %q, want only the CLI's start %q", kinds, want)
	}
	if args := l.args(); len(args) != 1 || !slices.Contains(args[0], "--resume="+string(id)) {
		t.Errorf("CLI command lines %q, want one with --resume=%s", args, id)
	}
}

// TestLoadErrors covers requests that cannot be served.
func TestLoadErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	id := storeSession(t, config, recordedCwd, data)
	// A file outside projects/ that a crafted id could reach.
	if err := os.WriteFile(filepath.Join(config, "secret.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		config string
		id     acp.SessionID
		cwd    string
		code   int
	}{
		{"unknown id", config, "00000000-0000-4000-8000-00000000dead", recordedCwd, acp.CodeResourceNotFound},
		{"path in id", config, "../../secret", recordedCwd, acp.CodeResourceNotFound},
		{"empty id", config, "", recordedCwd, acp.CodeResourceNotFound},
		{"no projects dir", t.TempDir(), id, recordedCwd, acp.CodeResourceNotFound},
		{"relative cwd", config, id, "project", acp.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &launches{}
			a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + tt.config}, Launch: l.launch, Logger: testLogger(t),
				ModelWait: -1}) // the stand-in lists no models: nothing to wait for
			defer a.Close()
			rec := &transcript{}
			_, err := a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: tt.id, Cwd: tt.cwd}, updateRecorder(rec))
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Errorf("LoadSession error %v, want code %d", err, tt.code)
			}
			_, err = a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: tt.id, Cwd: tt.cwd}, updateRecorder(rec))
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Errorf("ResumeSession error %v, want code %d", err, tt.code)
			}
			if len(rec.items) != 0 || len(l.args()) != 0 {
				t.Errorf("a failed load sent %d updates and started %d CLIs", len(rec.items), len(l.args()))
			}
		})
	}
	t.Run("already open", func(t *testing.T) {
		a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: (&launches{}).launch, Logger: testLogger(t),
			ModelWait: -1})
		defer a.Close()
		s, err := a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: id, Cwd: recordedCwd}, &acptest.Client{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: recordedCwd}, &acptest.Client{})
		if !errors.Is(err, acp.ErrInvalidRequest) {
			t.Errorf("loading an open session: %v, want invalid request", err)
		}
	})
}

// TestLoadFromOtherProject finds a session stored under another project
// directory than the one of the requested cwd (the SDKs look there too).
func TestLoadFromOtherProject(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	id := storeSession(t, config, recordedCwd, data)
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: (&launches{}).launch, Logger: testLogger(t),
		ModelWait: -1})
	defer a.Close()
	rec := &transcript{}
	s, err := a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: "/somewhere/else"}, updateRecorder(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(rec.items) == 0 {
		t.Error("nothing replayed")
	}
}

// TestMissingExecutable checks that a CLI that cannot be run is reported
// when a session is opened, naming the path and what to do.
func TestMissingExecutable(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "claude-not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(transcriptDir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	id := storeSession(t, config, recordedCwd, data)
	for _, path := range []string{filepath.Join(dir, "missing"), notExec, dir, "acpbridge-no-such-claude"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := New(Options{Path: path, Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Logger: testLogger(t), ModelCache: "-"})
			defer a.Close()
			rec := &transcript{}
			c := updateRecorder(rec)
			check := func(what string, err error) {
				t.Helper()
				var ae *acp.Error
				if !errors.As(err, &ae) || ae.Code != acp.CodeInternalError {
					t.Fatalf("%s: %v, want an internal error", what, err)
				}
				for _, s := range []string{path, "Install Claude Code", "--claude-path", "ACPBRIDGE_CLAUDE_PATH"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%s: %q does not mention %q", what, err, s)
					}
				}
			}
			_, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: dir}, c)
			check("NewSession", err)
			_, err = a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
			check("LoadSession", err)
			_, err = a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
			check("ResumeSession", err)
			if len(rec.items) != 0 {
				t.Errorf("%d updates sent", len(rec.items))
			}
		})
	}
}
