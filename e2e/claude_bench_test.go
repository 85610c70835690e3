//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// BenchmarkClaude measures acpbridge on the real Claude Code CLI side by side
// with the peer adapter (@agentclientprotocol/claude-agent-acp, pinned in
// bench/peer) and with the raw CLI alone, the floor. All three run the same
// CLI binary against the same scripted model server (fixtures/testsupport/modelserver,
// in this process, on 127.0.0.1) with a fresh HOME per sample, so the only
// difference is the adapter. `make bench-claude` installs what it needs and
// runs it; it skips when the CLI or the peer is missing.
//
// Each b.Loop iteration is one round: one sample of every subject, in an
// order that rotates between rounds, so drift of the machine spreads evenly
// (-benchtime Nx runs N rounds). A sample is one process lifetime:
//
//	adapters  start, initialize, session/new, at its answer a prompt (the
//	          cold path), then a second prompt streaming 20,000 text deltas,
//	          then the adapter's peak RSS, stdin EOF and exit
//	raw CLI   start with the adapter's flags, the first user message at once
//	          (the cold path), the streaming turn the same way; and a second
//	          process given the initialize control request at once (its
//	          initialize latency) and the first user message at its answer
//
// Every subject's streaming turn is read the same way, a read a millisecond
// (pacedReader), so that what this process spends reading does not weigh
// more on one subject than another.
//
// Reported per subject: the medians over the rounds (init-ms, new-ms,
// cold-ms, turn-ms, and turn-cpu-ms: the CPU time the adapter itself spent
// in the streaming turn) and the largest peak RSS (rss-MB); for the raw CLI
// also cold-ms-cli-init-first, its cold path when initialize comes first as
// an adapter sends it. Then the comparisons the targets are set on, of those
// medians (checked by cmd/dev/benchtable):
//
//	init-ratio-vs-peer   acpbridge initialize latency / the peer's (<= 1/50)
//	new-ratio-vs-peer    acpbridge session/new latency / the peer's (<= 1/20)
//	cold-ms-over-cli     acpbridge cold path minus the raw CLI's own start to
//	                     first delta, in ms (<= 20)
//	turn-ratio-vs-cli    acpbridge 20,000-delta turn / the raw CLI's (<= 1.05)
//	rss-ratio-vs-peer    acpbridge peak RSS / the peer's (<= 1/5)
//
// and, without targets, the medians of the per-round cold path difference
// and turn ratio (cold-ms-over-cli-by-round, turn-ratio-vs-cli-by-round),
// which a change of the machine's load between rounds moves less.
//
// ACPBRIDGE_BENCH_ENV (KEY=value pairs, space-separated) adds a fourth
// subject, acpbridge-env: acpbridge with those added to its environment, in
// the same rounds, to try a setting (GOMAXPROCS=1, say) side by side with
// the default under the same load. Its figures carry no targets.
//
// The machine's load average is logged at the start and the end: on a small
// machine other work moves the figures by more than the 5% and 20 ms
// margins, and interleaving the subjects cancels only part of that.
func BenchmarkClaude(b *testing.B) {
	skipUnderRace(b)
	env := claudeBenchEnv(b, true)
	subjects := env.subjects()
	b.Logf("load average at the start: %s", loadAverage())
	defer func() { b.Logf("load average at the end: %s", loadAverage()) }()
	var rounds []claudeRound
	for b.Loop() {
		r := claudeRound{}
		for i := range subjects {
			s := subjects[(i+len(rounds))%len(subjects)]
			sample, err := env.sample(b.Context(), s)
			if err != nil {
				b.Fatalf("%s, round %d: %v", s.name, len(rounds)+1, err)
			}
			r[s.name] = sample
		}
		rounds = append(rounds, r)
	}
	reportClaude(b, rounds)
}

// TestClaudeBenchDrivers runs one sample of every subject of BenchmarkClaude
// on a short streaming turn and checks that the drivers time real work:
// the scripted text reaches the client whole (the raw CLI's as one text
// delta each; an adapter's in at most as many chunks: acpbridge sends the
// deltas of one read window as one), the turns end normally, each timed
// span is positive and in causal order, and the adapters' peak RSS is read.
// It needs the real CLI and skips without it; the peer is checked when it
// is installed.
func TestClaudeBenchDrivers(t *testing.T) {
	t.Parallel()
	const deltas = 40
	env := claudeBenchEnv(t, false)
	env.stream().Deltas = deltas
	for _, s := range env.subjects() {
		t.Run(s.name, func(t *testing.T) {
			got, err := env.sample(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if got.deltas != deltas && (s.kind == subjectCLI || got.deltas == 0 || got.deltas > deltas) {
				t.Errorf("streaming turn: %d chunks reached the client for %d deltas", got.deltas, deltas)
			}
			if got.cold <= 0 || got.turn <= 0 || got.init <= 0 || got.turnCPU <= 0 || s.kind == subjectCLI && got.coldInit < got.init {
				t.Errorf("timings not taken, or out of order: %+v", got)
			}
			if s.kind != subjectCLI {
				if got.sessionNew <= 0 || got.cold < got.sessionNew {
					t.Errorf("session/new %v, cold path %v: the first chunk cannot precede the session", got.sessionNew, got.cold)
				}
				if got.rss <= 0 {
					t.Errorf("peak RSS %d: not read", got.rss)
				}
			}
		})
	}
}

// Scenario prompts: the model server picks its reply by these words (see
// fixtures/scenarios/claude/bench/session.json).
const (
	warmPrompt   = "warm-up: say you are ready."
	streamPrompt = "stream the long answer."
	// benchDeltas is the size of the streaming turn.
	benchDeltas = 20_000
)

// claudeBench is what every sample shares: the CLI, the peer, the scenario.
type claudeBench struct {
	cli      string // the Claude Code executable
	node     string // node, for the peer ("" when the peer is not run)
	peer     string // the peer's entry script
	scenario *modelserver.Scenario
	text     string // the streaming turn's whole text
	// modelCache is acpbridge's model list file, shared by its samples.
	modelCache string
}

// claudeBenchEnv finds the CLI (skipping without it) and the peer. With
// needPeer a missing peer skips too; otherwise the peer is left out.
func claudeBenchEnv(tb testing.TB, needPeer bool) *claudeBench {
	tb.Helper()
	e := &claudeBench{cli: claudeenv.Require(tb), modelCache: filepath.Join(tb.TempDir(), "claude-models.json")}
	e.peer = filepath.Join(repoRoot(), "bench", "peer", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(e.peer); serr != nil || err != nil {
		if needPeer {
			tb.Skip("peer adapter not installed: make bench-claude installs it (npm ci in bench/peer); node is needed too")
		}
		e.peer = ""
	}
	e.node = node
	sc, err := modelserver.Load(fixture(filepath.Join("scenarios", "claude", "bench", "session.json")))
	if err != nil {
		tb.Fatal(err)
	}
	e.scenario = sc
	st := e.stream()
	if st == nil {
		tb.Fatal("the bench scenario has no streaming turn")
	}
	e.text = st.Text
	if st.Deltas != benchDeltas || len([]rune(e.text)) < st.Deltas {
		tb.Fatalf("bench scenario streams %d deltas of %d characters; want %d", st.Deltas, len([]rune(e.text)), benchDeltas)
	}
	return e
}

// stream returns the text block of the streaming turn, which tests may
// shrink.
func (e *claudeBench) stream() *modelserver.Block {
	for i, t := range e.scenario.Turns {
		if strings.Contains(streamPrompt, t.Match) && len(t.Blocks) == 1 {
			return &e.scenario.Turns[i].Blocks[0]
		}
	}
	return nil
}

type subjectKind int

const (
	subjectBridge subjectKind = iota
	subjectPeer
	subjectCLI
)

// subject is one way of running the CLI.
type subject struct {
	name string
	kind subjectKind
	env  []string // added to acpbridge's environment
}

// subjects are acpbridge, the raw CLI and the peer (when installed), and
// acpbridge with ACPBRIDGE_BENCH_ENV added to its environment when that is
// set.
func (e *claudeBench) subjects() []subject {
	s := []subject{{name: "acpbridge", kind: subjectBridge}, {name: "cli", kind: subjectCLI}}
	if e.peer != "" {
		s = append(s, subject{name: "peer", kind: subjectPeer})
	}
	if env := strings.Fields(os.Getenv("ACPBRIDGE_BENCH_ENV")); len(env) > 0 {
		s = append(s, subject{name: "acpbridge-env", kind: subjectBridge, env: env})
	}
	return s
}

// claudeSample is what one sample measured. The raw CLI has no session/new;
// its rss is the CLI's own (for reference).
type claudeSample struct {
	init       time.Duration // process start to the initialize answer
	sessionNew time.Duration // session/new sent to its answer
	cold       time.Duration // adapters: session/new sent to the first chunk; CLI: start to the first text delta
	coldInit   time.Duration // CLI only: start to the first text delta when initialize comes first
	turn       time.Duration // the streaming prompt (user message) sent to its answer (result)
	turnCPU    time.Duration // CPU time the adapter (for the raw CLI: the CLI) spent in that turn
	deltas     int           // text pieces of the streaming turn that reached the client (chunks, or the raw CLI's deltas)
	rss        int64         // peak RSS in bytes: the adapter's own; for the raw CLI, the CLI's
}

// sample runs one sample of a subject in a fresh sandbox: its own project,
// HOME and model server.
func (e *claudeBench) sample(ctx context.Context, s subject) (claudeSample, error) {
	sb, err := newSandbox(e.scenario)
	if err != nil {
		return claudeSample{}, err
	}
	defer sb.close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	switch s.kind {
	case subjectBridge:
		// The model list the CLI gave in an earlier sample is known, as it
		// is to a bridge that has run once on the machine: session/new is
		// measured with it known (only the first sample waits for it).
		env := append([]string{"ACPBRIDGE_CLAUDE_MODEL_CACHE=" + e.modelCache}, s.env...)
		return e.adapterSample(ctx, sb, []string{binPath, "claude", "--claude-path", e.cli}, env)
	case subjectPeer:
		// The peer runs the CLI named by CLAUDE_CODE_EXECUTABLE, with the
		// environment it was given (HOME, CLAUDE_CONFIG_DIR, the server).
		return e.adapterSample(ctx, sb, []string{e.node, e.peer}, []string{"CLAUDE_CODE_EXECUTABLE=" + e.cli})
	default:
		return e.cliSample(ctx, sb)
	}
}

// sandbox is one sample's world: directories and a model server that has
// not answered anyone else.
type sandbox struct {
	root, home, tmp, project string
	srv                      *modelserver.Server
	env                      []string
}

func newSandbox(sc *modelserver.Scenario) (*sandbox, error) {
	root, err := os.MkdirTemp("", "acpbridge-claude-bench")
	if err != nil {
		return nil, err
	}
	sb := &sandbox{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), project: filepath.Join(root, "project")}
	for _, d := range []string{sb.home, sb.tmp, sb.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			os.RemoveAll(root)
			return nil, err
		}
	}
	sb.srv = modelserver.New(sc.Expand(map[string]string{"cwd": sb.project, "home": sb.home}), modelserver.Options{})
	sb.env = modelserver.ClaudeEnv(sb.srv.Start(), sb.home, sb.tmp)
	return sb, nil
}

func (sb *sandbox) close() {
	sb.srv.Close()
	os.RemoveAll(sb.root)
}

// startChild starts argv in dir with exactly env, in a process group of its
// own that the context's end kills, on raw pipes.
func startChild(ctx context.Context, argv, env []string, dir string) (*rawBridge, error) {
	ctx, cancel := context.WithCancel(ctx)
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		cancel()
		return nil, err
	}
	out, w := os.NewFile(uintptr(p[0]), "stdout"), os.NewFile(uintptr(p[1]), "stdout")
	started := time.Now()
	proc, err := bridgeproc.Launch(argv[0], bridgeproc.Options{Args: argv[1:], Env: env, Dir: dir, Stdout: w, Context: ctx, Group: true})
	w.Close()
	if err != nil {
		out.Close()
		cancel()
		return nil, err
	}
	c := &rawBridge{proc: proc, cancel: cancel, stdin: proc.Stdin, stderr: proc.Stderr, started: started, paced: &pacedReader{f: out}}
	c.out = bufio.NewReaderSize(c.paced, 64<<10)
	return c, nil
}

// adapterSample drives an ACP adapter through the sample's session.
func (e *claudeBench) adapterSample(ctx context.Context, sb *sandbox, argv, extraEnv []string) (claudeSample, error) {
	var s claudeSample
	a, err := startChild(ctx, argv, append(slices.Clone(sb.env), extraEnv...), sb.project)
	if err != nil {
		return s, err
	}
	ok := false
	defer func() {
		if !ok {
			a.kill()
		}
	}()
	if _, err := a.initialize(); err != nil {
		return s, err
	}
	s.init = time.Since(a.started)

	start := time.Now()
	sessionID, err := a.newSession(sb.project)
	if err != nil {
		return s, err
	}
	s.sessionNew = time.Since(start)
	var first time.Time
	if _, err := a.prompt(sessionID, warmPrompt, func(string) {
		if first.IsZero() {
			first = time.Now()
		}
	}); err != nil {
		return s, err
	}
	if first.IsZero() {
		return s, errors.New("the first prompt streamed no agent_message_chunk")
	}
	s.cold = first.Sub(start)

	var text strings.Builder
	cpu0, cpuErr := cpuTime(a.proc.Cmd.Process.Pid)
	a.paced.pace = streamPace
	start = time.Now()
	if _, err := a.prompt(sessionID, streamPrompt, func(t string) {
		s.deltas++
		text.WriteString(t)
	}); err != nil {
		return s, err
	}
	s.turn = time.Since(start)
	a.paced.pace = 0
	if cpu1, err := cpuTime(a.proc.Cmd.Process.Pid); err == nil && cpuErr == nil {
		s.turnCPU = cpu1 - cpu0
	}
	if text.String() != e.text {
		return s, fmt.Errorf("the streaming turn's chunks make %d characters that are not the scripted reply (%d)", len(text.String()), len(e.text))
	}
	ok = true
	s.rss, err = a.finishAgent()
	return s, err
}

// prompt runs one ACP prompt turn, handing the text of every
// agent_message_chunk to onText, and checks that it ends with end_turn.
func (a *rawBridge) prompt(sessionID, text string, onText func(string)) (string, error) {
	var decodeErr error
	res, err := a.call("session/prompt", map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	}, func(line []byte) {
		if !bytes.Contains(line, []byte(`"agent_message_chunk"`)) {
			return
		}
		var f struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			decodeErr = fmt.Errorf("session/update %s: %w", line, err)
			return
		}
		if f.Params.Update.SessionUpdate == "agent_message_chunk" {
			onText(f.Params.Update.Content.Text)
		}
	})
	if err != nil {
		return "", err
	}
	if decodeErr != nil {
		return "", decodeErr
	}
	var pr struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(res, &pr); err != nil || pr.StopReason != "end_turn" {
		return "", fmt.Errorf("session/prompt answered %s, want stopReason end_turn", res)
	}
	return pr.StopReason, nil
}

// finishAgent reads an adapter's peak RSS while it runs, then closes its
// stdin and waits for it to exit. Unlike rawBridge.finish it accepts any
// notification after the last answer: the peer sends some of its own.
func (a *rawBridge) finishAgent() (int64, error) {
	defer a.cancel()
	peak, err := peakRSS(a.proc.Cmd.Process.Pid)
	a.stdin.Close()
	_, _ = io.Copy(io.Discard, a.out)
	werr := a.wait()
	a.paced.f.Close()
	// The peer exits without waiting for its CLI, which then goes on to
	// write its state into the sample's HOME. Nothing of a sample may
	// outlive it: end what is left of the process group.
	_ = syscall.Kill(-a.proc.Cmd.Process.Pid, syscall.SIGKILL)
	switch {
	case err != nil:
		return 0, fmt.Errorf("reading peak RSS: %w", err)
	case werr != nil:
		return 0, fmt.Errorf("exit: %w; stderr:\n%s", werr, a.stderr.String())
	}
	return peak, nil
}

// cliArgs are the flags acpbridge gives the CLI (the claude dialect: adapters/claude).
func cliArgs() []string {
	return []string{
		"--output-format", "stream-json", "--verbose",
		"--input-format", "stream-json", "--include-partial-messages",
		"--permission-prompt-tool", "stdio",
		"--session-id=" + newSessionID(),
	}
}

// cliSample measures the raw CLI: the two turns in a process that gets its
// first user message at start, and (cliInitialize) a cold start the way
// acpbridge makes it in another.
func (e *claudeBench) cliSample(ctx context.Context, sb *sandbox) (claudeSample, error) {
	var s claudeSample
	var err error
	if s.init, s.coldInit, err = e.cliInitialize(ctx); err != nil {
		return s, err
	}
	c, err := startChild(ctx, append([]string{e.cli}, cliArgs()...), sb.env, sb.project)
	if err != nil {
		return s, err
	}
	ok := false
	defer func() {
		if !ok {
			c.kill()
		}
	}()
	var first time.Time
	if err := c.cliTurn(warmPrompt, func(string) {
		if first.IsZero() {
			first = time.Now()
		}
	}); err != nil {
		return s, err
	}
	if first.IsZero() {
		return s, errors.New("the first turn streamed no text delta")
	}
	s.cold = first.Sub(c.started)
	var text strings.Builder
	cpu0, cpuErr := cpuTime(c.proc.Cmd.Process.Pid)
	c.paced.pace = streamPace
	start := time.Now()
	if err := c.cliTurn(streamPrompt, func(t string) {
		s.deltas++
		text.WriteString(t)
	}); err != nil {
		return s, err
	}
	s.turn = time.Since(start)
	c.paced.pace = 0
	if cpu1, err := cpuTime(c.proc.Cmd.Process.Pid); err == nil && cpuErr == nil {
		s.turnCPU = cpu1 - cpu0
	}
	if text.String() != e.text {
		return s, fmt.Errorf("the streaming turn's deltas make %d characters that are not the scripted reply (%d)", len(text.String()), len(e.text))
	}
	ok = true
	s.rss, err = c.finishAgent()
	return s, err
}

// cliInitialize runs a raw CLI the way acpbridge does on a cold start: the
// initialize control request written at once, and the first user message at
// its answer. It returns the time from the start to that answer, and to the
// first text delta. It runs in a sandbox of its own, so that its model
// server answers the warm-up prompt afresh.
func (e *claudeBench) cliInitialize(ctx context.Context) (init, cold time.Duration, err error) {
	sb, err := newSandbox(e.scenario)
	if err != nil {
		return 0, 0, err
	}
	defer sb.close()
	c, err := startChild(ctx, append([]string{e.cli}, cliArgs()...), sb.env, sb.project)
	if err != nil {
		return 0, 0, err
	}
	ok := false
	defer func() {
		if !ok {
			c.kill()
		}
	}()
	if err := c.writeJSON(map[string]any{"type": "control_request", "request_id": "req_1",
		"request": map[string]any{"subtype": "initialize"}}); err != nil {
		return 0, 0, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return 0, 0, c.failure(fmt.Errorf("awaiting the initialize answer: %w", err))
		}
		if bytes.Contains(line, []byte(`"control_response"`)) && bytes.Contains(line, []byte(`"req_1"`)) {
			break
		}
	}
	init = time.Since(c.started)
	var first time.Time
	if err := c.cliTurn(warmPrompt, func(string) {
		if first.IsZero() {
			first = time.Now()
		}
	}); err != nil {
		return 0, 0, err
	}
	if first.IsZero() {
		return 0, 0, errors.New("the first turn streamed no text delta")
	}
	ok = true
	_, err = c.finishAgent()
	return init, first.Sub(c.started), err
}

// cliTurn writes one user message to a raw CLI and reads its output until
// the turn's result, handing the text of every text delta to onText.
func (c *rawBridge) cliTurn(text string, onText func(string)) error {
	if err := c.writeJSON(map[string]any{
		"type":               "user",
		"message":            map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}},
		"parent_tool_use_id": nil,
		"session_id":         "",
	}); err != nil {
		return err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return c.failure(fmt.Errorf("awaiting the result: %w", err))
		}
		switch {
		case bytes.Contains(line, []byte(`"text_delta"`)):
			var f struct {
				Type  string `json:"type"`
				Event struct {
					Delta struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"delta"`
				} `json:"event"`
			}
			if err := json.Unmarshal(line, &f); err != nil {
				return fmt.Errorf("claude wrote %q: %w", line, err)
			}
			if f.Type == "stream_event" && f.Event.Delta.Type == "text_delta" {
				onText(f.Event.Delta.Text)
			}
		case bytes.Contains(line, []byte(`"type":"result"`)):
			var r struct {
				Type    string `json:"type"`
				IsError bool   `json:"is_error"`
				Result  string `json:"result"`
			}
			if err := json.Unmarshal(line, &r); err != nil {
				return fmt.Errorf("claude wrote %q: %w", line, err)
			}
			if r.Type != "result" {
				continue
			}
			if r.IsError {
				return fmt.Errorf("the turn failed: %s", r.Result)
			}
			return nil
		}
	}
}

// writeJSON writes one line to the child's stdin.
func (c *rawBridge) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return c.failure(fmt.Errorf("writing to claude: %w", err))
	}
	return nil
}

// newSessionID returns a random version-4 UUID, as the CLI wants for
// --session-id.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// repoRoot is the module root, from this file's place in it.
func repoRoot() string {
	return filepath.Dir(fixture(""))
}

// claudeRound is one sample of each subject, by subject name.
type claudeRound map[string]claudeSample

// reportClaude reports every subject's medians (units named
// METRIC-UNIT-SUBJECT, so go test lists them grouped by metric), the
// comparisons cmd/dev/benchtable holds to the targets, and a side-by-side table
// in the log.
func reportClaude(b *testing.B, rounds []claudeRound) {
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	med := func(name string, f func(claudeSample) time.Duration) float64 {
		var v []float64
		for _, r := range rounds {
			v = append(v, ms(f(r[name])))
		}
		return median(v)
	}
	peak := func(name string) float64 {
		var m int64
		for _, r := range rounds {
			m = max(m, r[name].rss)
		}
		return float64(m) / (1 << 20)
	}
	type figures struct{ init, sessionNew, cold, turn, turnCPU, rss float64 }
	fig := map[string]figures{}
	var t strings.Builder
	fmt.Fprintf(&t, "medians of %d rounds in ms (peak RSS: the largest, in MiB; the raw CLI's is the CLI's own):\n", len(rounds))
	row := "%-14s %11s %12s %10s %10s %9s %7s %7s\n"
	fmt.Fprintf(&t, row, "subject", "initialize", "session/new", "cold path", "20k turn", "turn CPU", "RSS", "chunks")
	for _, name := range []string{"acpbridge", "acpbridge-env", "peer", "cli"} {
		if _, ok := rounds[0][name]; !ok {
			continue
		}
		f := figures{
			init:       med(name, func(s claudeSample) time.Duration { return s.init }),
			sessionNew: med(name, func(s claudeSample) time.Duration { return s.sessionNew }),
			cold:       med(name, func(s claudeSample) time.Duration { return s.cold }),
			turn:       med(name, func(s claudeSample) time.Duration { return s.turn }),
			turnCPU:    med(name, func(s claudeSample) time.Duration { return s.turnCPU }),
			rss:        peak(name),
		}
		fig[name] = f
		b.ReportMetric(f.init, "init-ms-"+name)
		b.ReportMetric(f.cold, "cold-ms-"+name)
		b.ReportMetric(f.turn, "turn-ms-"+name)
		b.ReportMetric(f.turnCPU, "turn-cpu-ms-"+name)
		b.ReportMetric(f.rss, "rss-MB-"+name)
		sn := "-"
		if name != "cli" {
			b.ReportMetric(f.sessionNew, "new-ms-"+name)
			sn = fmt.Sprintf("%.1f", f.sessionNew)
		}
		chunks := rounds[0][name].deltas
		for _, r := range rounds {
			chunks = min(chunks, r[name].deltas)
		}
		fmt.Fprintf(&t, row, name, fmt.Sprintf("%.1f", f.init), sn, fmt.Sprintf("%.1f", f.cold),
			fmt.Sprintf("%.1f", f.turn), fmt.Sprintf("%.0f", f.turnCPU), fmt.Sprintf("%.1f", f.rss), fmt.Sprint(chunks))
	}
	br, cli := fig["acpbridge"], fig["cli"]
	coldInit := med("cli", func(s claudeSample) time.Duration { return s.coldInit })
	b.ReportMetric(coldInit, "cold-ms-cli-init-first")
	fmt.Fprintf(&t, "raw CLI cold path with initialize first (as an adapter starts it): %.1f\n", coldInit)
	b.Log(t.String())
	t.Reset()
	// The spread says how far to trust the medians on this machine.
	for _, m := range []struct {
		what string
		f    func(claudeSample) time.Duration
	}{
		{"cold path", func(s claudeSample) time.Duration { return s.cold }},
		{"20k turn", func(s claudeSample) time.Duration { return s.turn }},
	} {
		fmt.Fprintf(&t, "%s by round, in ms:\n", m.what)
		for _, name := range []string{"acpbridge", "acpbridge-env", "peer", "cli"} {
			if _, ok := rounds[0][name]; !ok {
				continue
			}
			fmt.Fprintf(&t, "%-14s", name)
			for _, r := range rounds {
				fmt.Fprintf(&t, " %6.0f", ms(m.f(r[name])))
			}
			fmt.Fprintln(&t)
		}
	}
	b.Log(t.String())
	b.ReportMetric(br.cold-cli.cold, "cold-ms-over-cli")
	b.ReportMetric(br.turn/cli.turn, "turn-ratio-vs-cli")
	// The same comparisons round by round: the median of each round's
	// difference (ratio) leaves out what changed between rounds, and
	// tells how far the two figures above are noise.
	var coldDiff, turnRatio []float64
	for _, r := range rounds {
		coldDiff = append(coldDiff, ms(r["acpbridge"].cold)-ms(r["cli"].cold))
		turnRatio = append(turnRatio, ms(r["acpbridge"].turn)/ms(r["cli"].turn))
	}
	b.ReportMetric(median(coldDiff), "cold-ms-over-cli-by-round")
	b.ReportMetric(median(turnRatio), "turn-ratio-vs-cli-by-round")
	if env, ok := fig["acpbridge-env"]; ok {
		b.ReportMetric(env.cold-cli.cold, "env-cold-ms-over-cli")
		b.ReportMetric(env.turn/cli.turn, "env-turn-ratio-vs-cli")
	}
	if peer, ok := fig["peer"]; ok {
		b.ReportMetric(br.init/peer.init, "init-ratio-vs-peer")
		b.ReportMetric(br.sessionNew/peer.sessionNew, "new-ratio-vs-peer")
		b.ReportMetric(br.rss/peer.rss, "rss-ratio-vs-peer")
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[n/2]
}

// cpuTime is the CPU time process pid has used so far, all its threads,
// read from its CPU clock (Linux: clock_getcpuclockid, which is exact, where
// /proc/PID/stat counts 10 ms ticks).
func cpuTime(pid int) (time.Duration, error) {
	clock := (^uintptr(pid))<<3 | 2 // CPUCLOCK_SCHED of the whole process
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, fmt.Errorf("reading the CPU clock of process %d: %w", pid, errno)
	}
	return time.Duration(ts.Nano()), nil
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, or a
// note that it is unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
