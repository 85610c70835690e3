//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
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
	tree   *bridgeproc.Tree // what the world's bridges started
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
	env := agentenv.Require(t, name, agentenv.Options{ModelURL: url, Root: root, Cwd: proj})
	return &nativeWorld{t: t, name: name, root: root, env: env, srv: srv, schema: acptest.Load(t),
		tree: &bridgeproc.Tree{Root: root, Home: env.Home}}
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

// nativeBridge is one `acpbridge NAME` on stdio with the Go SDK client
// connected to it. Every frame it writes is validated against the ACP
// schema and kept, in order, for the assertions about ordering.
type nativeBridge struct {
	*bridgeproc.Proc
	w    *nativeWorld
	conn *sdk.ClientSideConnection
	ed   *acpclient.Editor
	init sdk.InitializeResponse
}

// startNative runs a bridge in the world and initializes it. Its cleanup
// closes its stdin and checks that nothing it started survives.
func (w *nativeWorld) startNative(t *testing.T) *nativeBridge {
	t.Helper()
	return w.startBridge(t, w.bridgeArgs())
}

// startBridge is startNative with the bridge's command line args (after
// the logging flags).
func (w *nativeWorld) startBridge(t *testing.T, args []string) *nativeBridge {
	t.Helper()
	b := &nativeBridge{w: w, ed: acpclient.New("")}
	tap := acpclient.NewTap(w.schema.NewChecker(), func(err error) { t.Errorf("bridge stdout: %v", err) })
	// Registered first, so it runs after the stop: every frame decodes.
	t.Cleanup(func() { agentFrames(t, tap.Since(0)) })
	b.Proc = bridgeproc.Start(t, binPath, bridgeproc.Options{
		Args: append([]string{"--log-level", "debug", "--log-format", "json"}, args...),
		Env:  w.bridgeEnv(),
		// In the project, as an editor starts it: the agent asked at
		// initialize then serves the first session opened there, and the
		// session's agent is the bridge's one child in the project.
		Dir: w.env.Dir, Tap: tap, Tree: w.tree, StopWithin: 20 * time.Second, WantClean: true})
	b.conn = b.Connect(b.ed)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var err error
	b.init, err = b.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "acp-go-sdk native e2e", Version: "0.13.5"}})
	if err != nil {
		t.Fatalf("initialize: %v\nbridge stderr:\n%s", err, bridgeproc.Tail(b.Stderr.String(), 40))
	}
	return b
}

// stop closes the bridge's stdin (the editor went away), waits up to limit
// for it to exit cleanly and checks that nothing it started survives.
// Later calls do nothing.
func (b *nativeBridge) stop(t *testing.T, limit time.Duration) { b.Stop(t, limit) }

// awaitExit is stop for a bridge already told to stop otherwise.
func (b *nativeBridge) awaitExit(t *testing.T, limit time.Duration) { b.Stop(t, limit) }

// frames returns the frames the bridge wrote after the tap's mark.
func (b *nativeBridge) frames(t *testing.T, mark int) []wireFrame {
	return agentFrames(t, b.Tap.Since(mark))
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
		t.Fatalf("session/new: %v\nbridge stderr:\n%s", err, bridgeproc.Tail(b.Stderr.String(), 40))
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
	p := &pending{b: b, mark: b.Tap.Mark(), started: time.Now(), text: b.ed.Expect(answer), done: make(chan turn, 1)}
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
	p.b.Track()
}

// wait waits up to limit for the turn's answer.
func (p *pending) wait(t *testing.T, limit time.Duration) turn {
	t.Helper()
	select {
	case r := <-p.done:
		p.b.Track()
		r.frames = p.b.frames(t, p.mark)
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
	for _, pid := range bridgeproc.Children(b.Cmd.Process.Pid) {
		if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == b.w.env.Dir {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("bridge children in the project: %v, want the one session agent", found)
	}
	return found[0]
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

// agentFrames decodes the agent's frames among fs.
func agentFrames(t *testing.T, fs []acpclient.Frame) []wireFrame {
	var out []wireFrame
	for _, f := range fs {
		if !f.FromAgent {
			continue
		}
		w := wireFrame{raw: f.Raw}
		if err := json.Unmarshal([]byte(f.Raw), &w); err != nil {
			t.Errorf("bridge stdout: decoding %s: %v", f.Raw, err)
		}
		out = append(out, w)
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
