package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// threadServer answers thread/start with thread-1, thread-2, ..., at once
// followed by a warning about the thread (as Codex reports MCP server
// start-up), and reports each start (its cwd) on started and each thread
// unsubscribed on unsubscribed.
type threadServer struct {
	started, unsubscribed chan string
}

func (f *threadServer) run(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	sc := bufio.NewScanner(stdin)
	n := 0
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cwd      string `json:"cwd"`
				ThreadID string `json:"threadId"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		result := `{}`
		switch m.Method {
		case mThreadStart:
			n++
			result = fmt.Sprintf(`{"thread":{"id":"thread-%d"}}`, n)
		case mThreadUnsub:
			f.unsubscribed <- m.Params.ThreadID
		}
		fmt.Fprintf(stdout, "{\"id\":%s,\"result\":%s}\n", m.ID, result)
		if m.Method == mThreadStart {
			fmt.Fprintf(stdout, `{"method":"warning","params":{"threadId":"thread-%d","message":"about thread-%d"}}`+"\n", n, n)
			select {
			case f.started <- m.Params.Cwd:
			case <-ctx.Done():
				return nil
			}
		}
	}
	return nil
}

// TestSpareThread: a thread is started ahead for the bridge's directory;
// session/new there takes it (no thread/start of its own) and starts the
// next spare; a session/new elsewhere, or with MCP servers, discards the
// spare (unsubscribed, never leaked) and starts its own thread; no spare is
// started with the editor's MCP servers.
func TestSpareThread(t *testing.T) {
	f := &threadServer{started: make(chan string, 16), unsubscribed: make(chan string, 16)}
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), SpareCwd: "/project",
		Launch: func(context.Context, proc.Spec) (proc.Process, error) { return proc.InProcess("codex", f.run), nil }})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	next := func(want string) {
		t.Helper()
		select {
		case cwd := <-f.started:
			if cwd != want {
				t.Fatalf("thread/start in %q, want %q", cwd, want)
			}
		case <-ctx.Done():
			t.Fatalf("no thread/start in %q", want)
		}
	}
	open := func(req acp.NewSessionRequest) acp.SessionID {
		t.Helper()
		s, err := a.NewSession(ctx, req, &acptest.Client{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		// What Codex said about the thread before the session had it is
		// the session's, for its first turn.
		var said []string
		for _, m := range s.(*Session).q.take() {
			said = append(said, m.Method)
		}
		if !slices.Equal(said, []string{"warning"}) {
			t.Errorf("session %s holds %v; want the warning about its thread", s.ID(), said)
		}
		return s.ID()
	}
	a.Info()
	next("/project") // the first spare, with the app-server
	if id := open(acp.NewSessionRequest{Cwd: "/project"}); id != "thread-1" {
		t.Errorf("session/new in the spare's directory = %s, want the spare thread-1", id)
	}
	next("/project") // the next spare
	if id := open(acp.NewSessionRequest{Cwd: "/elsewhere"}); id != "thread-3" {
		t.Errorf("session/new elsewhere = %s, want its own thread-3", id)
	}
	next("/elsewhere") // its own thread
	next("/elsewhere") // the spare for the directory now in use
	mcp := []acp.McpServer{{Stdio: &acp.McpServerStdio{Name: "tools", Command: "true"}}}
	if id := open(acp.NewSessionRequest{Cwd: "/elsewhere", McpServers: mcp}); id != "thread-5" {
		t.Errorf("session/new with MCP servers = %s, want its own thread-5", id)
	}
	next("/elsewhere") // its own thread, and no spare: the editor's MCP servers are not started ahead
	// The discarded spares are unsubscribed in the background.
	var got []string
	for len(got) < 2 {
		select {
		case id := <-f.unsubscribed:
			got = append(got, id)
		case <-ctx.Done():
			t.Fatalf("unsubscribed %v; want the unused spares thread-2 and thread-4", got)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"thread-2", "thread-4"}) {
		t.Errorf("unsubscribed %v; want the unused spares thread-2 and thread-4", got)
	}
	a.Close()
	if n := len(f.started); n != 0 {
		t.Errorf("%d more thread/start calls; want none after a session with MCP servers", n)
	}
}

// TestNoSpare: with spares off, session/new starts the one thread it uses.
func TestNoSpare(t *testing.T) {
	f := &threadServer{started: make(chan string, 16), unsubscribed: make(chan string, 16)}
	a := New(Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), SpareCwd: "/project", NoSpare: true,
		Launch: func(context.Context, proc.Spec) (proc.Process, error) { return proc.InProcess("codex", f.run), nil }})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: "/project"}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	a.Close()
	if n := len(f.started); n != 1 {
		t.Errorf("%d thread/start calls, want 1", n)
	}
}
