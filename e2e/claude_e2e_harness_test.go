//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// The end-to-end tests of `acpbridge claude` run the real Claude Code CLI
// (npm @anthropic-ai/claude-code, pinned by scripts/install-claude.sh)
// against the scripted Messages API stand-in (fixtures/testsupport/modelserver), each
// test in its own HOME, CLAUDE_CONFIG_DIR and project directory, driven by
// the independent Go ACP SDK.

// e2eRepoRoot is the module root.
func e2eRepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..")
}

// e2eClaudeCLI finds the Claude Code executable (claudeenv.Require: $CLAUDE_BIN,
// else the one make claude-cli installs under .cache/claude). Without it the
// test is skipped, except under CI=true, where it must run.
func e2eClaudeCLI(t *testing.T) string {
	t.Helper()
	return claudeenv.Require(t)
}

// e2eScenario is a scenario file: the model's part plus the project files
// to create before the CLI starts (the recorder's "files" key).
type e2eScenario struct {
	model *modelserver.Scenario
	files map[string]string
}

// e2eLoadScenario reads fixtures/scenarios/claude/e2e/NAME.json, or a
// recording scenario fixtures/scenarios/claude/NAME.json, or else takes
// the model server's built-in scenario NAME (which has no files).
func e2eLoadScenario(t *testing.T, name string) e2eScenario {
	t.Helper()
	dir := filepath.Join(e2eRepoRoot(), "fixtures", "scenarios", "claude")
	path := filepath.Join(dir, "e2e", name+".json")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(dir, name+".json")
	}
	if _, err := os.Stat(path); err != nil {
		if sc, ok := modelserver.Builtin(name); ok {
			return e2eScenario{model: sc}
		}
	}
	sc, err := modelserver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var extra struct {
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(data, &extra); err != nil {
		t.Fatal(err)
	}
	return e2eScenario{model: sc, files: extra.Files}
}

// e2eWorld is one test's isolated world: a HOME (with its
// CLAUDE_CONFIG_DIR), a TMPDIR, a project directory and a model server
// playing the scenario. Bridges started in it share all of these, as a
// user's successive editor sessions share their machine.
type e2eWorld struct {
	t                     *testing.T
	cli                   string // the real CLI
	root, home, tmp, proj string
	sc                    *modelserver.Scenario // as written (placeholders unexpanded)
	srv                   *modelserver.Server
	env                   []string // the bridge's (and so the CLI's) environment
	schema                *acptest.Validator
	bridges               int // bridges started so far

	// claudePath is what the bridge runs (the CLI, or a wrapper that execs
	// it); set before start.
	claudePath string
	// files, when set before start, makes the client an editor with these
	// buffers that advertises fs; bridgeArgs are added to the command.
	files      map[string]string
	bridgeArgs []string

	tree *bridgeproc.Tree // what the world's bridges started
}

func newE2EWorld(t *testing.T, scenario string) *e2eWorld {
	t.Helper()
	cli := e2eClaudeCLI(t)
	sc := e2eLoadScenario(t, scenario)
	// Short paths: the CLI names per-project state after the directory.
	root, err := os.MkdirTemp("", "acpb-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	w := &e2eWorld{t: t, cli: cli, root: root, sc: sc.model, schema: acptest.Load(t),
		home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), proj: filepath.Join(root, "project")}
	w.claudePath = cli
	w.tree = &bridgeproc.Tree{Root: root, Home: w.home}
	for _, d := range []string{w.home, w.tmp, w.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range sc.files {
		p := filepath.Join(w.proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.srv = modelserver.New(sc.model.Expand(map[string]string{"cwd": w.proj, "home": w.home}), modelserver.Options{})
	url := w.srv.Start()
	w.env = modelserver.ClaudeEnv(url, w.home, w.tmp)
	// Cleanups run last-in first-out: bridges stop (and are checked for
	// leftovers) before the server closes and the directories go.
	t.Cleanup(func() {
		w.srv.Close()
		if t.Failed() {
			t.Logf("kept %s for inspection", root)
			return
		}
		os.RemoveAll(root)
	})
	return w
}

// e2eBridge is one running `acpbridge claude` with an SDK client
// connection to it.
type e2eBridge struct {
	*bridgeproc.Proc
	w      *e2eWorld
	trace  string
	conn   *sdk.ClientSideConnection
	client *acpclient.Editor
	init   sdk.InitializeResponse
}

// start runs a bridge in the world, initializes it and returns it. Every
// frame it writes is validated against the ACP schema; its debug log and a
// trace of both protocols are shown if the test fails.
func (w *e2eWorld) start() *e2eBridge {
	client := &acpclient.Editor{} // cancels permission requests until a test sets a policy
	var caps sdk.ClientCapabilities
	if w.files != nil {
		client.SetFiles(w.files)
		caps.Fs = sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
	}
	return w.launch(client, client, caps)
}

// launch is start for an editor made of conn (the SDK's view of it, which
// may add methods to base) advertising caps.
func (w *e2eWorld) launch(conn sdk.Client, base *acpclient.Editor, caps sdk.ClientCapabilities) *e2eBridge {
	t := w.t
	t.Helper()
	b := &e2eBridge{w: w, client: base, trace: filepath.Join(w.root, fmt.Sprintf("trace-%d.jsonl", w.bridges))}
	w.bridges++
	args := []string{"--log-level", "debug", "--log-format", "json", "--trace", b.trace, "claude", "--claude-path", w.claudePath}
	// Registered first, so it runs after the stop's checks.
	t.Cleanup(func() {
		if t.Failed() {
			if data, err := os.ReadFile(b.trace); err == nil {
				t.Logf("trace (tail):\n%s", bridgeproc.Tail(string(data), 120))
			}
		}
	})
	b.Proc = bridgeproc.Start(t, binPath, bridgeproc.Options{Args: append(args, w.bridgeArgs...), Env: w.env, Dir: w.proj,
		Tap:  acpclient.NewTap(w.schema.NewChecker(), func(err error) { t.Errorf("bridge stdout: %v", err) }),
		Tree: w.tree, WantClean: true})
	b.conn = b.Connect(conn)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var err error
	b.init, err = b.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: caps, ClientInfo: &sdk.Implementation{Name: "acp-go-sdk e2e", Version: "0.13.5"}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return b
}

// newSession opens a session in the world's project directory.
func (b *e2eBridge) newSession(ctx context.Context, mcp ...sdk.McpServer) sdk.NewSessionResponse {
	b.w.t.Helper()
	if mcp == nil {
		mcp = []sdk.McpServer{}
	}
	res, err := b.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: b.w.proj, McpServers: mcp})
	if err != nil {
		b.w.t.Fatalf("session/new: %v", err)
	}
	return res
}

// waitStarted waits until the session's CLI has started and the bridge
// has reported what it learnt from it (slash commands and config options),
// so that later updates belong to what the test does next.
func (b *e2eBridge) waitStarted(ctx context.Context) {
	b.w.t.Helper()
	c := b.client
	err := c.WaitFor(ctx, "the CLI's commands and config options", func() bool {
		return c.Count(0, func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil }) > 0 &&
			c.Count(0, func(u sdk.SessionUpdate) bool { return u.ConfigOptionUpdate != nil }) > 0
	})
	if err != nil {
		b.w.t.Fatal(err)
	}
}

// prompt runs one turn with a text prompt.
func (b *e2eBridge) prompt(ctx context.Context, sid sdk.SessionId, text string) (sdk.PromptResponse, error) {
	res, err := b.conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	b.Track()
	return res, err
}

// mustPrompt runs a turn that must end with want.
func (b *e2eBridge) mustPrompt(ctx context.Context, sid sdk.SessionId, text string, want sdk.StopReason) {
	b.w.t.Helper()
	res, err := b.prompt(ctx, sid, text)
	if err != nil {
		b.w.t.Fatalf("session/prompt %q: %v", text, err)
	}
	if res.StopReason != want {
		b.w.t.Fatalf("session/prompt %q: stopReason %q, want %q", text, res.StopReason, want)
	}
}

// cliPids returns the bridge's children: the CLI processes it runs.
func (b *e2eBridge) cliPids() []int {
	return bridgeproc.Children(b.Cmd.Process.Pid)
}

// stop closes the bridge's stdin (the editor went away), waits for it to
// exit cleanly and checks that nothing it started survives: no process in
// the groups of its CLIs and no process working in, or living off, the
// world's directories. It is idempotent.
func (b *e2eBridge) stop() { b.Stop(b.w.t, 10*time.Second) }

// e2eCmdline returns a process's arguments.
func e2eCmdline(pid int) []string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// e2eRPCError extracts a JSON-RPC error answered by the bridge.
func e2eRPCError(err error) (*sdk.RequestError, bool) {
	var re *sdk.RequestError
	ok := errors.As(err, &re)
	return re, ok
}

// said returns what the scripted model says in the given turns: the text
// of their blocks of type kind ("text" or "thinking"), joined.
func (w *e2eWorld) said(kind string, turns ...int) string {
	var b strings.Builder
	for _, i := range turns {
		for _, blk := range w.sc.Turns[i].Blocks {
			if blk.Type == kind {
				b.WriteString(blk.Text)
			}
		}
	}
	return b.String()
}

// mainRequestsText returns, for each main-loop request the model server
// received, the concatenated text of its messages (user prompts, tool
// results and assistant replies), to check what the CLI told the model.
func (w *e2eWorld) mainRequestsText() []string {
	var out []string
	for _, r := range w.srv.MainRequests() {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &body)
		var b strings.Builder
		for _, m := range body.Messages {
			b.Write(m.Content)
			b.WriteByte('\n')
		}
		out = append(out, b.String())
	}
	return out
}
