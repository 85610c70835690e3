package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// updateLog is a client that keeps every update and allows every tool.
type updateLog struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	ids     map[acp.SessionID]bool
}

func (l *updateLog) client() *acptest.Client {
	return &acptest.Client{
		Update: func(_ context.Context, n acp.SessionNotification) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.updates = append(l.updates, n.Update)
			if l.ids == nil {
				l.ids = map[acp.SessionID]bool{}
			}
			l.ids[n.SessionID] = true
			return nil
		},
		Permission: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
			return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(optAllowOnce)}, nil
		},
	}
}

func (l *updateLog) take() []acp.SessionUpdate {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.updates
	l.updates = nil
	return out
}

// restartWorld starts the scripted model server for a scenario, with more
// turns after its own and with its project files, and returns a maker of
// adapters on the real CLI that share one CLI home (so that each, as
// after restarting the bridge, sees the sessions the others stored), the
// project directory and the server.
func restartWorld(t *testing.T, scenario string, more ...modelserver.Turn) (func() *Adapter, string, *modelserver.Server) {
	bin, home, tmp, project := realCLIWorld(t)
	path := filepath.Join(scenarioDir, scenario+".json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gjson.GetBytes(raw, "files").ForEach(func(k, v gjson.Result) bool {
		if err := os.WriteFile(filepath.Join(project, k.String()), []byte(v.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	})
	sc, err := modelserver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sc.Turns = append(sc.Turns, more...)
	srv := modelserver.New(sc.Expand(map[string]string{"cwd": project, "home": home}), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	return func() *Adapter {
		a := New(Options{Path: bin, Env: modelserver.ClaudeEnv(url, home, tmp), Logger: testLogger(t),
			ModelCache:  filepath.Join(home, "models.json"),
			CancelGrace: 20 * time.Second, StopGrace: 2 * time.Second})
		t.Cleanup(func() { _ = a.Close() })
		return a
	}, project, srv
}

// TestRealCLILoadAfterRestart runs a turn with the real CLI, then, in a new
// adapter (as after restarting the bridge), lists and loads the session
// from the CLI's own transcript file and prompts again: the replay shows
// what the live turn showed, and the resumed CLI answers with the whole
// conversation as context. It needs the real CLI (realCLIWorld).
func TestRealCLILoadAfterRestart(t *testing.T) {
	const resumed = "Yes: build/ was created in the previous turn."
	newAdapter, project, srv := restartWorld(t, "bash_allow", modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text(resumed)}})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const first = "Create a build directory and show me what is in the project."

	// The live turn, in a first adapter.
	live := &updateLog{}
	a1 := newAdapter()
	s1, err := a1.NewSession(ctx, acp.NewSessionRequest{Cwd: project}, live.client())
	if err != nil {
		t.Fatal(err)
	}
	id := s1.ID()
	if stop, err := s1.Prompt(ctx, prompt(first)); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("first Prompt = %q, %v", stop, err)
	}
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}

	// A new adapter lists the session and loads it.
	a2 := newAdapter()
	list, err := a2.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &project})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != id || list.Sessions[0].Cwd != project ||
		list.Sessions[0].Title == nil || *list.Sessions[0].Title != first || list.Sessions[0].UpdatedAt == nil {
		t.Errorf("session/list = %+v, want session %s in %s titled %q", list.Sessions, id, project, first)
	}
	loaded := &updateLog{}
	s2, err := a2.LoadSession(ctx, acp.LoadSessionRequest{SessionID: id, Cwd: project}, loaded.client())
	if err != nil {
		t.Fatal(err)
	}
	replayed := loaded.take()
	lv, rv := summarize(live.take()), summarize(replayed)
	if rv.user != first || lv.text != rv.text || !equalJSON(lv.tools, rv.tools) {
		t.Errorf("the replay differs from the live turn:\nlive     %q %s\nreplayed %q %q %s", lv.text, lv.tools, rv.user, rv.text, rv.tools)
	}
	if !loaded.ids[id] || len(loaded.ids) != 1 {
		t.Errorf("updates for sessions %v, want only %s", loaded.ids, id)
	}

	// The next prompt resumes the CLI, which sends the stored conversation.
	if stop, err := s2.Prompt(ctx, prompt("Did that work?")); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after load = %q, %v", stop, err)
	}
	if got := summarize(loaded.take()).text; got != resumed {
		t.Errorf("answer after load %q, want %q", got, resumed)
	}
	main := srv.MainRequests()
	if last := main[len(main)-1].Body; !bytes.Contains(last, []byte("toolu_bash_allow_01")) || !strings.Contains(string(last), first) {
		t.Errorf("the resumed CLI did not send the stored conversation to the model")
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted model turns left", n)
	}
}
