//go:build linux

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// The end-to-end tests of `acpbridge gemini|qwen|opencode|copilot` run the
// pinned real CLIs (scripts/install-agents.sh, `make agent-clis`) offline
// against the scripted model server, in the environment fixtures/testsupport/agentenv
// builds for each, and drive the bridge with an independent ACP client.
// What they assert is what an editor must see; fixtures/testsupport/agentenv/QUIRKS.md
// says where a CLI on its own gets it wrong.

// nativeWorld is one CLI's isolated world: HOME, project and a model server
// playing agentenv.Scenario. Bridges started in it share them, as a user's
// successive editor sessions share a machine.
type nativeWorld struct {
	t      *testing.T
	name   string
	root   string
	env    *agentenv.Env
	srv    *modelserver.Server
	schema *acptest.Validator

	mu    sync.Mutex
	pgids map[int]bool // process groups of the agents seen; guarded by mu
}

// newNativeWorld builds the world of the named CLI. A missing CLI skips the
// test, and fails it under CI=true.
func newNativeWorld(t *testing.T, name string) *nativeWorld {
	t.Helper()
	// Short paths: the CLIs name per-project state after the directory.
	root, err := os.MkdirTemp("", "acpb-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "project")
	srv := modelserver.New(agentenv.Scenario(proj), modelserver.Options{})
	url := srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if t.Failed() {
			t.Logf("kept %s for inspection", root)
			return
		}
		os.RemoveAll(root)
	})
	env, err := agentenv.New(name, agentenv.Options{ModelURL: url, Root: root, Cwd: proj})
	if errors.Is(err, agentenv.ErrNotInstalled) {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &nativeWorld{t: t, name: name, root: root, env: env, srv: srv, schema: acptest.Load(t), pgids: map[int]bool{}}
}

// freshModel points the world at a new model server playing the scenario
// from its start, and removes the files the scenario's commands write, so
// that the world's warm HOME can serve the scenario again.
func (w *nativeWorld) freshModel(t *testing.T) {
	t.Helper()
	srv := modelserver.New(agentenv.Scenario(w.env.Dir), modelserver.Options{})
	url := srv.Start()
	t.Cleanup(srv.Close)
	env, err := agentenv.New(w.name, agentenv.Options{ModelURL: url, Root: w.root, Cwd: w.env.Dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{agentenv.AllowFile, agentenv.RejectFile} {
		if err := os.Remove(filepath.Join(w.env.Dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	w.srv, w.env = srv, env
}

// bridgeArgs is the command line that serves the world's CLI: the bridge's
// own command for it, with the CLI's path and the arguments agentenv adds
// after its ACP flag (Gemini's model).
func (w *nativeWorld) bridgeArgs() []string {
	extra := w.env.Argv[1+len(w.env.Agent.ACPArgs):]
	return append([]string{w.name, "--path", w.env.Argv[0], "--"}, extra...)
}

// bridgeEnv is the environment of a bridge in the world: the CLI's, which
// the bridge passes on to it.
func (w *nativeWorld) bridgeEnv() []string {
	// Under -race the runtime sleeps 1 s at exit by default: not the
	// bridge's time.
	return append(append([]string(nil), w.env.Env...), "GORACE=atexit_sleep_ms=0")
}

// track records the process groups of pid's children, to check after the
// bridge has gone that none of them has a survivor.
func (w *nativeWorld) track(pid int) {
	for _, c := range e2eChildren(pid) {
		if pg, err := syscall.Getpgid(c); err == nil {
			w.mu.Lock()
			w.pgids[pg] = true
			w.mu.Unlock()
		}
	}
}

// checkNoSurvivors fails the test for any live process in an agent's group
// or whose working directory or HOME lies in the world.
func (w *nativeWorld) checkNoSurvivors(t *testing.T) {
	w.mu.Lock()
	pgids := make(map[int]bool, len(w.pgids))
	for pg := range w.pgids {
		pgids[pg] = true
	}
	w.mu.Unlock()
	(&e2eWorld{t: t, root: w.root, home: w.env.Home, pgids: pgids}).checkNoSurvivors()
}

// nativeBridge is one `acpbridge NAME` on stdio with the Go SDK client
// connected to it. Every frame it writes is validated against the ACP
// schema and kept, in order, for the assertions about ordering.
type nativeBridge struct {
	w      *nativeWorld
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	check  *acptest.Checker
	conn   *sdk.ClientSideConnection
	ed     *nativeEditor
	init   sdk.InitializeResponse
	tap    *frameTap
	exited chan struct{} // closed when Wait returned
	err    error         // set before exited is closed
	pr     *io.PipeReader
	copied chan struct{}
	ended  sync.Once // awaitExit's checks
}

// startNative runs a bridge in the world and initializes it. Its cleanup
// closes its stdin and checks that nothing it started survives.
func (w *nativeWorld) startNative(t *testing.T) *nativeBridge {
	t.Helper()
	b := &nativeBridge{w: w, stderr: &lockedBuffer{}, check: w.schema.NewChecker(), ed: &nativeEditor{},
		exited: make(chan struct{}), copied: make(chan struct{})}
	b.tap = &frameTap{check: b.check}
	b.cmd = exec.Command(binPath, append([]string{"--log-level", "debug", "--log-format", "json"}, w.bridgeArgs()...)...)
	b.cmd.Env = w.bridgeEnv()
	// In the project, as an editor starts it: the agent asked at
	// initialize then serves the first session opened there, and the
	// session's agent is the bridge's one child in the project.
	b.cmd.Dir = w.env.Dir
	b.cmd.Stderr = b.stderr
	in, err := b.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.stdin = &checkedWriter{w: in, check: b.check}
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	b.pr = pr
	go func() {
		defer close(b.copied)
		b.tap.copy(t, out, pw)
	}()
	go func() {
		<-b.copied // stdout is drained before Wait, as os/exec wants
		b.err = b.cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() { b.stop(t, 20*time.Second) })
	b.conn = sdk.NewClientSideConnection(b.ed, b.stdin, pr)
	b.conn.SetLogger(acpclient.Quiet())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b.init, err = b.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "acp-go-sdk native e2e", Version: "0.13.5"}})
	if err != nil {
		t.Fatalf("initialize: %v\nbridge stderr:\n%s", err, e2eTail(b.stderr.String(), 40))
	}
	return b
}

// stop closes the bridge's stdin (the editor went away), waits up to limit
// for it to exit and checks that nothing it started survives. Later calls
// do nothing.
func (b *nativeBridge) stop(t *testing.T, limit time.Duration) {
	b.w.track(b.cmd.Process.Pid)
	b.stdin.Close()
	b.awaitExit(t, limit)
}

// awaitExit waits up to limit for the bridge to exit (killing it after
// that), then checks the world for survivors.
func (b *nativeBridge) awaitExit(t *testing.T, limit time.Duration) {
	b.ended.Do(func() { b.checkExit(t, limit) })
}

func (b *nativeBridge) checkExit(t *testing.T, limit time.Duration) {
	select {
	case <-b.exited:
		if b.err != nil {
			t.Errorf("bridge exited with %v", b.err)
		}
	case <-time.After(limit):
		t.Errorf("bridge still running %v after it was told to stop", limit)
		b.cmd.Process.Kill()
		<-b.exited
	}
	b.pr.Close()
	if t.Failed() {
		t.Logf("bridge stderr (tail):\n%s", e2eTail(b.stderr.String(), 80))
		t.Logf("bridge frames (tail):\n%s", e2eTail(strings.Join(b.tap.lines(), "\n"), 80))
	}
	b.w.checkNoSurvivors(t)
}

func (b *nativeBridge) ctx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// newSession opens a session in the project.
func (b *nativeBridge) newSession(t *testing.T) sdk.SessionId {
	t.Helper()
	res, err := b.conn.NewSession(b.ctx(t, 60*time.Second), sdk.NewSessionRequest{Cwd: b.w.env.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nbridge stderr:\n%s", err, e2eTail(b.stderr.String(), 40))
	}
	if res.SessionId == "" {
		t.Fatal("session/new gave no session id")
	}
	return res.SessionId
}

// turn is what one prompt brought: its answer and the frames the bridge
// wrote meanwhile.
type turn struct {
	stop   sdk.StopReason
	err    error
	frames []wireFrame
}

// prompt runs one turn, answering permission requests with answer.
func (b *nativeBridge) prompt(t *testing.T, sid sdk.SessionId, text string, answer sdk.PermissionOptionKind) turn {
	t.Helper()
	return b.promptAsync(t, sid, text, answer).wait(t, 120*time.Second)
}

// pending is a prompt under way.
type pending struct {
	b       *nativeBridge
	mark    int
	started time.Time
	text    <-chan struct{} // closed at the turn's first agent text chunk
	done    chan turn
}

func (b *nativeBridge) promptAsync(t *testing.T, sid sdk.SessionId, text string, answer sdk.PermissionOptionKind) *pending {
	p := &pending{b: b, mark: b.tap.mark(), started: time.Now(), text: b.ed.expect(answer), done: make(chan turn, 1)}
	ctx := b.ctx(t, 120*time.Second)
	go func() {
		res, err := b.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		p.done <- turn{stop: res.StopReason, err: err}
	}()
	return p
}

// streaming waits for the turn's first agent text chunk.
func (p *pending) streaming(t *testing.T) {
	t.Helper()
	select {
	case <-p.text:
	case r := <-p.done:
		t.Fatalf("turn ended before any text: %q, %v", r.stop, r.err)
	case <-time.After(60 * time.Second):
		t.Fatal("no text streamed within 60 s")
	}
	p.b.w.track(p.b.cmd.Process.Pid)
}

// wait waits up to limit for the turn's answer.
func (p *pending) wait(t *testing.T, limit time.Duration) turn {
	t.Helper()
	select {
	case r := <-p.done:
		p.b.w.track(p.b.cmd.Process.Pid)
		r.frames = p.b.tap.since(p.mark)
		return r
	case <-time.After(limit):
		t.Fatalf("session/prompt not answered within %v", limit)
		return turn{}
	}
}

// sessionAgent returns the pid of the agent serving the session: the
// bridge's child working in the project.
func (b *nativeBridge) sessionAgent(t *testing.T) int {
	t.Helper()
	var found []int
	for _, pid := range e2eChildren(b.cmd.Process.Pid) {
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == b.w.env.Dir {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("bridge children in the project: %v, want the one session agent", found)
	}
	return found[0]
}

// nativeEditor is the SDK client's side: it answers permission requests
// with the kind the running prompt wants and signals the first text chunk.
type nativeEditor struct {
	mu     sync.Mutex
	answer sdk.PermissionOptionKind // guarded by mu
	text   chan struct{}            // guarded by mu; closed at the next agent text chunk
}

var _ sdk.Client = (*nativeEditor)(nil)

func (e *nativeEditor) expect(answer sdk.PermissionOptionKind) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = answer
	e.text = make(chan struct{})
	return e.text
}

func (e *nativeEditor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil && c.Content.Text.Text != "" && e.text != nil {
		close(e.text)
		e.text = nil
	}
	return nil
}

func (e *nativeEditor) RequestPermission(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	answer := e.answer
	e.mu.Unlock()
	for _, o := range r.Options {
		if o.Kind == answer {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (e *nativeEditor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
}

func (e *nativeEditor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
}

func (e *nativeEditor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}

func (e *nativeEditor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}

func (e *nativeEditor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}

func (e *nativeEditor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}

func (e *nativeEditor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// frameTap copies the bridge's stdout to the SDK client line by line,
// validating every frame against the ACP schema and keeping it.
type frameTap struct {
	check *acptest.Checker

	mu     sync.Mutex
	frames []wireFrame // guarded by mu
}

// wireFrame is one frame the bridge wrote, decoded as far as the ordering
// assertions need.
type wireFrame struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Update   wireUpdate `json:"update"`
		ToolCall struct {
			ID string `json:"toolCallId"`
		} `json:"toolCall"`
	} `json:"params"`
	Result struct {
		StopReason string `json:"stopReason"`
	} `json:"result"`
}

// wireUpdate is a session/update's update.
type wireUpdate struct {
	Kind   string `json:"sessionUpdate"`
	ID     string `json:"toolCallId"`
	Status string `json:"status"`
	// Content is a chunk's content block, or a tool call's content list.
	Content json.RawMessage `json:"content"`
}

// text returns the text of a chunk's text content block.
func (u wireUpdate) text() (string, bool) {
	var c struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(u.Content, &c) != nil || c.Type != "text" {
		return "", false
	}
	return c.Text, true
}

func (c *frameTap) copy(t *testing.T, out io.Reader, w *io.PipeWriter) {
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if cerr := c.check.AgentFrame(line); cerr != nil {
				t.Errorf("bridge stdout: %v", cerr)
			}
			f := wireFrame{raw: strings.TrimSpace(string(line))}
			if err := json.Unmarshal(line, &f); err != nil {
				t.Errorf("bridge stdout: decoding %s: %v", e2eTail(f.raw, 1), err)
			}
			c.mu.Lock()
			c.frames = append(c.frames, f)
			c.mu.Unlock()
			w.Write(line)
		}
		if err != nil {
			w.Close()
			return
		}
	}
}

func (c *frameTap) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.frames)
}

func (c *frameTap) since(i int) []wireFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wireFrame(nil), c.frames[i:]...)
}

func (c *frameTap) lines() []string {
	var out []string
	for _, f := range c.since(0) {
		out = append(out, f.raw)
	}
	return out
}

// updates returns the session/update payloads among frames.
func updates(frames []wireFrame) []wireUpdate {
	var out []wireUpdate
	for _, f := range frames {
		if f.Method == "session/update" {
			out = append(out, f.Params.Update)
		}
	}
	return out
}

// chunks returns the text of the frames' update chunks of kind.
func chunks(frames []wireFrame, kind string) []string {
	var out []string
	for _, u := range updates(frames) {
		if text, ok := u.text(); ok && u.Kind == kind {
			out = append(out, text)
		}
	}
	return out
}

// asked returns the tool call ids of the permission requests among frames.
func asked(frames []wireFrame) []string {
	var out []string
	for _, f := range frames {
		if f.Method == "session/request_permission" {
			out = append(out, f.Params.ToolCall.ID)
		}
	}
	return out
}

// lastStatus returns the last status the frames give tool call id.
func lastStatus(frames []wireFrame, id string) string {
	s := ""
	for _, u := range updates(frames) {
		if (u.Kind == "tool_call" || u.Kind == "tool_call_update") && u.ID == id && u.Status != "" {
			s = u.Status
		}
	}
	return s
}
