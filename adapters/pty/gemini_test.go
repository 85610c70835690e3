package pty

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// geminiScenario is what the scripted Gemini API answers: turns are picked
// by a word of the prompt (or of a tool result).
func geminiScenario() *modelserver.Scenario {
	return &modelserver.Scenario{
		Name: "gemini-tui",
		Turns: []modelserver.Turn{
			{Match: "SAY-HELLO", Times: 2, Blocks: []modelserver.Block{{Type: "text", Text: "Hello from the scripted model.", Deltas: 3}}},
			{Match: "RUN-ALLOWED", Blocks: []modelserver.Block{
				{Type: "text", Text: "Running it."},
				{Type: "tool_use", Role: modelserver.RoleShell, Input: json.RawMessage(`{"command":"echo yes > allowed.txt","description":"Write a file"}`)},
			}},
			{Match: "RUN-REJECTED", Blocks: []modelserver.Block{
				{Type: "text", Text: "Writing it."},
				{Type: "tool_use", Role: modelserver.RoleShell, Input: json.RawMessage(`{"command":"echo no > rejected.txt","description":"Write a file"}`)},
			}},
			{Match: "STREAM-SLOWLY", DeltaDelayMS: 200, Blocks: []modelserver.Block{
				{Type: "text", Text: strings.Repeat("This answer streams slowly so that it can be cancelled. ", 8), Deltas: 40},
			}},
		},
		Exhausted: &modelserver.Turn{Blocks: []modelserver.Block{modelserver.Text("Understood.")}},
	}
}

// geminiTUI is the real Gemini CLI's TUI, offline against the scripted
// Gemini API, in a fresh home and project: its argv and environment for
// the adapter. A missing CLI fails the test under CI=true and skips it
// elsewhere.
func geminiTUI(t *testing.T) (argv, env []string, cwd, home string) {
	t.Helper()
	requireUnix(t)
	root := t.TempDir()
	cwd = filepath.Join(root, "project")
	srv := modelserver.New(geminiScenario(), modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	t.Cleanup(srv.Close)
	e := agentenv.Require(t, "gemini", agentenv.Options{ModelURL: url, Root: root, Cwd: cwd})
	// The folder is not trusted yet, as on a user's first session in it:
	// the CLI asks (folder trust is on by default).
	// The TUI: the same command line without the ACP flag, on a terminal
	// that says what it is.
	argv = slices.DeleteFunc(slices.Clone(e.Argv), func(a string) bool { return slices.Contains(e.Agent.ACPArgs, a) })
	return argv, append(e.Env, "TERM=xterm-256color"), cwd, e.Home
}

// geminiSession starts the real Gemini CLI TUI through the built-in gemini
// profile; turn runs one prompt answering dialogs with the option labelled
// answer. With record set and -record given, the session is recorded.
func geminiSession(t *testing.T, argv, env []string, cwd string, record bool) (a *Adapter, s acp.Session, c *client, turn func(text, answer string) (acp.StopReason, string)) {
	t.Helper()
	p, err := FindProfile("", argv[0])
	if err != nil || p.Name != "gemini" {
		t.Fatalf("profile for %s = %v, %v; want the built-in gemini", argv[0], p, err)
	}
	o := Options{Command: argv, Env: env, Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: time.Second}
	if record && *recordFlag {
		o.Record = NewRecorder(filepath.Join(recordDir, "gemini.txtar"), "The real Gemini CLI TUI (0.61.0) offline against the scripted Gemini API, in\n"+
			"a folder it trusts: a text turn, a shell command allowed and one rejected\n"+
			"in its approval dialog, a cancel while the reply streams, and a last text\n"+
			"turn.\n\n"+
			"Recorded with the pinned CLI (make agent-clis):\n\n\tgo test ./adapters/pty -run 'TestGeminiTUI$' -record\n")
	}
	a, err = New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	c = newClient(nil)
	s, err = a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: cwd}, c)
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	return a, s, c, func(text, answer string) (acp.StopReason, string) {
		t.Helper()
		c.mu.Lock()
		c.chunks, c.asked, c.answer = nil, nil, choose(answer)
		c.mu.Unlock()
		ctx := deadline(t)
		if sess := s.(*closer).session; !sess.started {
			// The first turn waits for the CLI to start (and to restart
			// after its trust dialog), which the profile bounds itself.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second+time.Duration(sess.p.Start))
			defer cancel()
		}
		stop, err := prompt(t, ctx, s, text)
		if err != nil {
			t.Fatalf("Prompt(%q): %v", text, err)
		}
		return stop, c.text()
	}
}

// A first session in a folder: Gemini CLI draws its idle screen, then asks
// whether to trust the folder. The editor is asked, once; trusting restarts
// the CLI, and the prompt is answered by the restarted one.
func TestGeminiTUITrust(t *testing.T) {
	t.Parallel()
	argv, env, cwd, home := geminiTUI(t)
	a, _, c, turn := geminiSession(t, argv, env, cwd, false)
	defer a.Close()
	stop, got := turn("SAY-HELLO please", "Trust folder")
	if stop != acp.StopReasonEndTurn || !strings.HasPrefix(got, "Hello from the scripted model.") {
		t.Errorf("text turn = %s, %q; want end_turn and the model's text without its marker", stop, got)
	}
	checkTrustAsked(t, c, home, cwd)
}

// The built-in gemini profile drives the real Gemini CLI TUI in a folder it
// trusts (TestGeminiTUITrust has the trust dialog; trusting restarts the
// CLI, and on a loaded machine the restarted one has been seen to come up
// untrusted, offering no "Allow for this session"): a text turn without the
// reply's marker, a shell command allowed and one rejected through the
// CLI's own dialog, and a cancel while the reply streams, all in one
// session (the CLI takes seconds to start).
func TestGeminiTUI(t *testing.T) {
	t.Parallel()
	argv, env, cwd, home := geminiTUI(t)
	trusted, _ := json.Marshal(map[string]string{cwd: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), trusted, 0o644); err != nil {
		t.Fatal(err)
	}
	a, s, c, turn := geminiSession(t, argv, env, cwd, true)
	closed := false
	t.Cleanup(func() {
		if !closed {
			a.Close()
		}
	})

	stop, got := turn("SAY-HELLO please", "")
	if stop != acp.StopReasonEndTurn || !strings.HasPrefix(got, "Hello from the scripted model.") {
		t.Errorf("text turn = %s, %q; want end_turn and the model's text without its marker", stop, got)
	}

	stop, got = turn("RUN-ALLOWED please", "Allow once")
	if stop != acp.StopReasonEndTurn || !strings.Contains(got, "Running it.") {
		t.Errorf("allowed turn = %s, %q", stop, got)
	}
	checkGeminiAsked(t, c, "echo yes > allowed.txt")
	if _, err := os.Stat(filepath.Join(cwd, "allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}

	stop, got = turn("RUN-REJECTED please", "No, suggest changes (esc)")
	if stop != acp.StopReasonEndTurn || !strings.Contains(got, "Writing it.") {
		t.Errorf("rejected turn = %s, %q", stop, got)
	}
	checkGeminiAsked(t, c, "echo no > rejected.txt")
	if _, err := os.Stat(filepath.Join(cwd, "rejected.txt")); err == nil {
		t.Errorf("the rejected command ran")
	}

	c.mu.Lock()
	c.chunks, c.first, c.once = nil, make(chan struct{}), sync.Once{}
	first := c.first
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(deadline(t))
	go func() {
		<-first
		cancel()
	}()
	stop, err := prompt(t, ctx, s, "STREAM-SLOWLY please")
	cancel()
	if err != nil || stop != acp.StopReasonCancelled {
		t.Errorf("cancelled turn = %s, %v; want cancelled", stop, err)
	}
	if got := c.text(); !strings.HasPrefix(got, "This answer") || strings.Count(got, "cancelled.") >= 8 {
		t.Errorf("cancelled turn streamed %q; want the start of the answer, not all of it", got)
	}
	// Back at idle: the next turn works.
	if stop, got := turn("SAY-HELLO again", ""); stop != acp.StopReasonEndTurn || !strings.Contains(got, "Hello from the scripted model.") {
		t.Errorf("turn after the cancel = %s, %q", stop, got)
	}

	// What the bridge does at stdin EOF: close. Nothing of the CLI is left
	// (its launcher relaunches node as a child).
	if len(processesWith("HOME="+home)) == 0 {
		t.Error("no process of the running CLI found: the check after Close would prove nothing")
	}
	closed = true
	if err := a.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
	if left := processesWith("HOME=" + home); len(left) > 0 {
		t.Errorf("processes of the CLI left after Close: %v", left)
	}
}

// processesWith lists the live processes whose environment holds kv (on
// Linux; elsewhere none are found).
func processesWith(kv string) []int {
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), kv) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue // a zombie: ended, waiting for its reaper
			}
		}
		out = append(out, pid)
	}
	return out
}

// checkTrustAsked checks that the last turn asked the editor, once, to
// trust the folder, and that the CLI saved the answer.
func checkTrustAsked(t *testing.T, c *client, home, cwd string) {
	t.Helper()
	c.mu.Lock()
	asked := slices.Clone(c.asked)
	c.mu.Unlock()
	if len(asked) != 1 || !strings.Contains(*asked[0].ToolCall.Title, "Do you trust the files in this folder?") {
		t.Fatalf("asked %+v; want the folder-trust dialog once", asked)
	}
	var kinds []string
	for _, o := range asked[0].Options {
		kinds = append(kinds, string(o.Kind))
	}
	if want := []string{"allow_once", "reject_once"}; !slices.Equal(kinds, want) {
		t.Errorf("trust options %+v: kinds %v, want %v", asked[0].Options, kinds, want)
	}
	var trusted map[string]string
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "trustedFolders.json"))
	if err == nil {
		err = json.Unmarshal(b, &trusted)
	}
	if err != nil || trusted[cwd] == "" {
		t.Errorf("trustedFolders.json = %s, %v; want %s trusted", b, err, cwd)
	}
}

// checkGeminiAsked checks that the last turn asked once, with the command as
// the title and the dialog's three options.
func checkGeminiAsked(t *testing.T, c *client, command string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(c.asked))
	}
	req := c.asked[0]
	if title := *req.ToolCall.Title; !strings.Contains(title, command) {
		t.Errorf("title = %q, want the command %q", title, command)
	}
	var kinds []string
	for _, o := range req.Options {
		kinds = append(kinds, string(o.Kind))
	}
	if want := []string{"allow_once", "allow_always", "reject_once"}; !slices.Equal(kinds, want) {
		t.Errorf("options %+v: kinds %v, want %v", req.Options, kinds, want)
	}
}
