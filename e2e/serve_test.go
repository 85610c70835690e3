package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// served is a running `acpbridge serve`: its URL and what it logs.
type served struct {
	*bridgeproc.Proc
	url  string      // http://127.0.0.1:PORT
	logs chan string // every stderr line, in order; closed at the exit
}

// startServe runs `acpbridge --log-format json --log-level debug serve
// --port 0 ARGS...` and waits until it listens. The test's cleanup stops it
// with SIGTERM and expects a clean exit.
func startServe(t *testing.T, env []string, args ...string) *served {
	t.Helper()
	s := &served{logs: make(chan string, 1<<16)}
	var stdout bytes.Buffer
	s.Proc = bridgeproc.Start(t, binPath, bridgeproc.Options{
		Args:       append([]string{"--log-format", "json", "--log-level", "debug", "serve", "--port", "0"}, args...),
		Env:        append(os.Environ(), env...),
		Stdout:     &stdout,
		NoStdin:    true,
		StderrLine: func(line string) { s.logs <- line },
		Signal:     syscall.SIGTERM,
		WantClean:  true,
	})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		<-s.Exited() // stderr is copied in full before Wait returns
		close(s.logs)
	}()
	t.Cleanup(func() {
		s.stop(t)
		<-exited
		if stdout.Len() != 0 {
			t.Errorf("serve wrote to stdout: %q", stdout.String())
		}
	})
	var m struct{ Message, URL string }
	for m.Message != "listening" {
		line := s.log(t, "listening")
		json.Unmarshal([]byte(line), &m)
	}
	s.url = strings.TrimSuffix(m.URL, "/acp")
	return s
}

// log returns the next stderr line containing substr.
func (s *served) log(t *testing.T, substr string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-s.logs:
			if !ok {
				t.Fatalf("bridge exited before logging %q", substr)
			}
			if strings.Contains(line, substr) {
				return line
			}
		case <-timeout:
			t.Fatalf("bridge did not log %q within 10s", substr)
		}
	}
}

// stop sends SIGTERM and waits for a clean exit (once).
func (s *served) stop(t *testing.T) {
	// The logs are not read any more: keep the bridge from blocking on
	// them.
	go func() {
		for range s.logs {
		}
	}()
	s.Stop(t, 10*time.Second)
}

// remote is a client of the client_id wire shape: it POSTs messages and
// reads its SSE stream, checking every message against the ACP schema.
type remote struct {
	t      *testing.T
	rpc    string
	token  string
	frames chan map[string]any
	check  *acptest.Checker
	cancel context.CancelFunc
	done   chan struct{}
	nextID int
}

func dialRemote(t *testing.T, base, clientID, token string) *remote {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &remote{t: t, rpc: base + "/acp/rpc?client_id=" + clientID, token: token, frames: make(chan map[string]any, 4096),
		check: acptest.Load(t).NewChecker(), cancel: cancel, done: make(chan struct{})}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/acp/sse?client_id="+clientID, nil)
	r.auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET /acp/sse: %v %v", resp, err)
	}
	go r.read(ctx, resp.Body)
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

func (r *remote) auth(req *http.Request) {
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
}

func (r *remote) read(ctx context.Context, body io.ReadCloser) {
	defer close(r.done)
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := r.check.AgentFrame([]byte(data)); err != nil {
			r.t.Errorf("stream: %v", err)
		}
		var m map[string]any
		json.Unmarshal([]byte(data), &m)
		select {
		case r.frames <- m:
		case <-ctx.Done():
			return
		}
	}
}

// post sends one message and returns the status.
func (r *remote) post(v any) int {
	r.t.Helper()
	msg, _ := json.Marshal(v)
	r.check.ClientFrame(msg)
	req, _ := http.NewRequest(http.MethodPost, r.rpc, bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	r.auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (r *remote) call(method string, params any) int {
	r.t.Helper()
	r.nextID++
	if st := r.post(map[string]any{"jsonrpc": "2.0", "id": r.nextID, "method": method, "params": params}); st != http.StatusAccepted {
		r.t.Fatalf("POST %s: status %d", method, st)
	}
	return r.nextID
}

// until reads messages until one satisfies ok, answering permission
// requests with allow_once on the way; it returns that message and how many
// permission requests were answered.
func (r *remote) until(ok func(map[string]any) bool) (map[string]any, int) {
	r.t.Helper()
	asked := 0
	for {
		select {
		case m := <-r.frames:
			if ok(m) {
				return m, asked
			}
			if m["method"] == "session/request_permission" {
				asked++
				r.post(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{
					"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
			}
		case <-time.After(20 * time.Second):
			r.t.Fatal("no message within 20s")
		}
	}
}

func answerTo(id int) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil }
}

// open initializes and opens a session, returning its id.
func (r *remote) open(cwd string) string {
	r.t.Helper()
	r.until(answerTo(r.call("initialize", map[string]any{"protocolVersion": 1})))
	m, _ := r.until(answerTo(r.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})))
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		r.t.Fatalf("session/new answer: %v", m)
	}
	return sid
}

// TestServeReplay serves a recording over HTTP with a token and runs its
// turn from two clients at once: each answers its two permission requests
// by POST and sees only its own session. SIGTERM then stops the bridge
// cleanly.
func TestServeReplay(t *testing.T) {
	t.Parallel()
	s := startServe(t, []string{"ACPBRIDGE_TOKEN=tok"}, "replay", fixture("claude/demo.txtar"))
	done := make(chan error, 2)
	for i := range 2 {
		r := dialRemote(t, s.url, fmt.Sprintf("client-%d", i), "tok")
		go func() { done <- runDemoTurn(r) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.url+"/acp/rpc?client_id=client-0", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("request without the token: %d, want 401", resp.StatusCode)
	}
	s.stop(t)
}

// runDemoTurn plays the demo recording's turn; it reports instead of
// failing, as it runs on its own goroutine.
func runDemoTurn(r *remote) error {
	sid := r.open("/home/user/project")
	id := r.call("session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "Add a hello-world command"}}})
	foreign := 0
	m, asked := r.until(func(m map[string]any) bool {
		if p, ok := m["params"].(map[string]any); ok && p["sessionId"] != nil && p["sessionId"] != sid {
			foreign++
		}
		return answerTo(id)(m)
	})
	stop, _ := m["result"].(map[string]any)["stopReason"].(string)
	if stop != "end_turn" || asked != 2 || foreign != 0 {
		return fmt.Errorf("turn ended %q after %d permission requests, with %d messages of other sessions", stop, asked, foreign)
	}
	return nil
}

// TestServeCommandLine checks the serve command's own errors: exit code 2,
// a message that says what to do, nothing on stdout.
func TestServeCommandLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"open address without a token", []string{"serve", "--host", "0.0.0.0", "replay", fixture("claude/text.txtar")}, "set --token"},
		{"bad port", []string{"serve", "--port", "70000", "replay", fixture("claude/text.txtar")}, "is not a TCP port"},
		{"replay without a fixture", []string{"serve", "replay"}, "replay takes exactly one FIXTURE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tt.args...)
			cmd.Env = append(os.Environ(), "ACPBRIDGE_TOKEN=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Errorf("exit: %v, want code 2", err)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr does not mention %q:\n%s", tt.inStderr, stderr.String())
			}
		})
	}
}
