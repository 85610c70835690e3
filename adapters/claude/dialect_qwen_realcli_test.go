//go:build unix

package claude_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// qwenSession opens a session of the real, pinned Qwen Code in its
// stream-JSON dialect, offline against the scripted Chat Completions
// server playing scenario (fixtures/scenarios/acp/NAME.json).
func qwenSession(t *testing.T, scenario string, c *client) (acp.Session, string) {
	t.Helper()
	w := qwenWorld(t, filepath.Join("../../fixtures/scenarios/acp", scenario+".json"), nil, c)
	return w.session, w.env.Dir
}

// qwenRun is one real Qwen Code session and its world.
type qwenRun struct {
	session acp.Session
	adapter acp.Adapter
	env     *agentenv.Env
	srv     *modelserver.Server
}

// qwenWorld opens a session of the real Qwen Code in its stream-JSON
// dialect against a model server playing the scenario file; settings, when
// set, edits Qwen's settings.json (given the model server's URL) first.
// Its cleanup closes the session and the adapter, and checks that no
// process lives on with the run's HOME.
func qwenWorld(t *testing.T, scenario string, settings func(s map[string]any, url string), clients ...*client) *qwenRun {
	t.Helper()
	root := t.TempDir()
	sc, err := modelserver.Load(scenario)
	if err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(root, "project")
	srv := modelserver.New(sc.Expand(map[string]string{"cwd": cwd}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	env := agentenv.Require(t, "qwen", agentenv.Options{ModelURL: url, Root: root, Cwd: cwd})
	if settings != nil {
		editSettings(t, filepath.Join(env.Home, ".qwen", "settings.json"), func(s map[string]any) { settings(s, url) })
	}
	c := &client{}
	if len(clients) > 0 {
		c = clients[0]
	}
	d, _ := claude.BuiltinDialect("qwen")
	a := claude.New(claude.Options{Dialect: d, Path: env.Argv[0], Env: env.Env, ModelCache: "-",
		StartTimeout: 2 * time.Minute, ModelWait: 2 * time.Minute,
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: env.Dir}, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		_ = a.Close()
		for _, pid := range bridgeproc.HomeProcesses(env.Home) {
			t.Errorf("process %d of Qwen's HOME survived the close", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return &qwenRun{session: s, adapter: a, env: env, srv: srv}
}

// editSettings rewrites a JSON settings file through edit.
func editSettings(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	s := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
	}
	edit(s)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQwenStreamJSON: the real Qwen Code through its stream-JSON dialect:
// text, a shell command allowed (its output shown) and one rejected, and
// its approval modes and models as the session's options.
func TestQwenStreamJSON(t *testing.T) {
	for _, tt := range []struct {
		scenario, prompt string
		answer           acp.PermissionOptionKind
		status           acp.ToolCallStatus
		text             string
	}{
		{"tool_allow", "RUN-ALLOWED: print the marker.", acp.PermissionOptionKindAllowOnce, acp.ToolCallStatusCompleted, "The command printed the marker."},
		{"tool_reject", "", acp.PermissionOptionKindRejectOnce, acp.ToolCallStatusFailed, ""},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			c := &client{answer: tt.answer}
			s, dir := qwenSession(t, tt.scenario, c)
			st := s.State()
			if st.Modes == nil || st.Modes.CurrentModeID != "default" || len(st.Modes.AvailableModes) != 5 {
				t.Errorf("modes: %s", dump(st.Modes))
			}
			p := tt.prompt
			if p == "" {
				p = rejectPrompt(t)
			}
			stop, err := prompt(t, s, c, p)
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("turn: %v, %v", stop, err)
			}
			us := c.take()
			call, last := toolCall(t, us)
			if call.Kind != acp.ToolKindExecute || !strings.HasPrefix(finalTitle(call, us), "echo ") {
				t.Errorf("shell tool call: %s, title %q", dump(call), finalTitle(call, us))
			}
			if *last.Status != tt.status {
				t.Errorf("shell status %q, want %q: %s", *last.Status, tt.status, dump(last))
			}
			if tt.status == acp.ToolCallStatusCompleted && !strings.Contains(dump(last.Content), "allowed-marker-7f3a") {
				t.Errorf("no command output in %s", dump(last))
			}
			if _, err := os.Stat(filepath.Join(dir, "allowed.txt")); (err == nil) != (tt.status == acp.ToolCallStatusCompleted) {
				t.Errorf("the command's file: %v", err)
			}
			if tt.text != "" && !strings.Contains(text(us), tt.text) {
				t.Errorf("text %q", text(us))
			}
			if err := s.SetMode(context.WithoutCancel(t.Context()), "plan"); err != nil {
				t.Errorf("set_permission_mode plan: %v", err)
			}
		})
	}
}

// rejectPrompt is the prompt of the tool_reject scenario.
func rejectPrompt(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/scenarios/acp/tool_reject.json")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), `"do": "prompt", "text": "`)
	if i < 0 {
		t.Fatal("no prompt in tool_reject.json")
	}
	rest := string(b)[i+len(`"do": "prompt", "text": "`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// finalTitle is the title the editor ends with for call: the announced
// one (while the input still streams), or the last one refined after it.
func finalTitle(call *acp.ToolCall, us []acp.SessionUpdate) string {
	title := call.Title
	for _, u := range us {
		if v := u.ToolCallUpdate; v != nil && v.ToolCallID == call.ToolCallID && v.Title != nil {
			title = *v.Title
		}
	}
	return title
}
