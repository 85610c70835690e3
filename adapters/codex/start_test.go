package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// chattyServer is an app-server stand-in that sends a notification before
// it answers each request, as Codex does with configWarning and
// remoteControl/status/changed while it starts.
func chattyServer(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "{\"method\":\"configWarning\",\"params\":{\"summary\":\"before %s\"}}\n", m.Method)
		result := `{}`
		if m.Method == mThreadStart {
			result = `{"thread":{"id":"thread-1"},"model":"gpt-5.5"}`
		}
		fmt.Fprintf(stdout, "{\"id\":%s,\"result\":%s}\n", m.ID, result)
	}
	return nil
}

// TestStartWithEarlyNotifications: notifications that arrive while the
// app-server is being started must not hold up its answers.
func TestStartWithEarlyNotifications(t *testing.T) {
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), StartTimeout: 10 * time.Second,
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", chattyServer), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, &acptest.Client{})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	defer s.Close()
	if s.ID() != "thread-1" {
		t.Errorf("session id = %q, want the thread id", s.ID())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("NewSession took %v", d)
	}
}

// TestStartNoticesReachNewSessions: what Codex says about no thread while
// it starts (configWarning) reaches each session opened on it as a notice,
// for editors that take notices, and never as agent text.
func TestStartNoticesReachNewSessions(t *testing.T) {
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("codex", chattyServer), nil
		}})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, withNotices := range []bool{true, false} {
		var got []string
		cl := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
			switch {
			case n.Update.Notice != nil:
				got = append(got, "notice: "+n.Update.Notice.Title)
			case n.Update.AgentMessageChunk != nil:
				got = append(got, "agent text")
			}
			return nil
		}}
		if withNotices {
			cl.Caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
		}
		s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, cl)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		want := ""
		if withNotices {
			want = "notice: before initialize|notice: before account/read|notice: before thread/start"
		}
		if g := strings.Join(got, "|"); !strings.HasPrefix(g, want) || !withNotices && g != "" {
			t.Errorf("notices=%v: updates %q, want %q first", withNotices, g, want)
		}
	}
}

// TestMissingExecutableSaysHowToInstall: a Path that is not found fails
// the session with an error that names it and ends with the install hint.
func TestMissingExecutableSaysHowToInstall(t *testing.T) {
	const hint = "Install Codex (npm install -g @openai/codex) or give the path of its executable with --codex-path"
	missing := t.TempDir() + "/codex"
	a := New(Options{Path: missing, InstallHint: hint, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	defer a.Close()
	_, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/project"}, &acptest.Client{})
	if err == nil {
		t.Fatal("a session opened on a missing executable")
	}
	if msg := err.Error(); !strings.Contains(msg, "Codex cannot be started from \""+missing+"\"") || !strings.HasSuffix(msg, ". "+hint) {
		t.Errorf("error %q: want it to name %s and end with the install hint", msg, missing)
	}
}
