//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/gen"
)

// The benchmarks below measure the built binary the way an editor uses it:
// a child process on real pipes. `make bench` runs them without -race and
// prints their figures against the targets (cmd/dev/benchtable). Each op starts
// a fresh bridge, so ns/op is a whole process lifetime; the figures of merit
// are the custom metrics:
//
//	ms/init       process start to the initialize answer (target < 10)
//	ms/init-floor the same for cmd/dev/initfloor, a Go program that only
//	              answers initialize: what any Go agent's start costs on
//	              the machine at hand (no target; read ms/init against it)
//	updates/s     session/update frames per second of a prompt (target >= 200000)
//	MB-peak-RSS   the bridge's peak resident set in MiB (target < 20), read
//	              from /proc before it exits (see peakRSS for why not rusage)

// throughputDeltas is the size of the throughput fixture: one turn streaming
// this many text deltas.
const throughputDeltas = 100_000

// BenchmarkInitialize times process start to the initialize answer, the
// bridge's and, alternating with it so that both see the same load, the
// floor's.
func BenchmarkInitialize(b *testing.B) {
	skipUnderRace(b)
	path := writeTextTurn(b, 1)
	var (
		untilInit, floor time.Duration
		maxRSS           int64
	)
	start := func(bin string, args ...string) (time.Duration, int64) {
		br, err := spawnRaw(b.Context(), bin, args...)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := br.initialize(); err != nil {
			br.kill()
			b.Fatal(err)
		}
		took := time.Since(br.started)
		rss, err := br.finish()
		if err != nil {
			b.Fatal(err)
		}
		return took, rss
	}
	for b.Loop() {
		took, rss := start(binPath, "replay", path)
		untilInit += took
		maxRSS = max(maxRSS, rss)
		took, _ = start(initFloorPath)
		floor += took
	}
	b.ReportMetric(float64(untilInit.Nanoseconds())/1e6/float64(b.N), "ms/init")
	b.ReportMetric(float64(floor.Nanoseconds())/1e6/float64(b.N), "ms/init-floor")
	b.ReportMetric(float64(maxRSS)/(1<<20), "MB-peak-RSS")
}

// BenchmarkReplayThroughput streams a 100,000-delta turn through the whole
// stdio path: initialize, session/new, then session/prompt timed from the
// request to its answer, counting every session/update in between.
func BenchmarkReplayThroughput(b *testing.B) {
	skipUnderRace(b)
	path := writeTextTurn(b, throughputDeltas)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var (
		updates int
		prompt  time.Duration
		maxRSS  int64
	)
	for b.Loop() {
		r, err := replayTurn(b.Context(), path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if r.chunks != throughputDeltas || r.stopReason != "end_turn" {
			b.Fatalf("%d agent_message_chunk updates and stopReason %q; want %d and end_turn",
				r.chunks, r.stopReason, throughputDeltas)
		}
		updates += r.updates
		prompt += r.prompt
		maxRSS = max(maxRSS, r.maxRSS)
	}
	b.ReportMetric(float64(updates)/prompt.Seconds(), "updates/s")
	b.ReportMetric(float64(maxRSS)/(1<<20), "MB-peak-RSS")
	b.ReportMetric(float64(st.Size())/(1<<20), "MB-fixture")
}

// TestGeneratedFixtureReplays runs a small generated fixture through the
// binary with the benchmark's own driver and checks that the driver counts
// real work: every delta arrives as one agent_message_chunk, in order, and
// the turn ends with end_turn. Every update is also validated against the
// ACP schema.
func TestGeneratedFixtureReplays(t *testing.T) {
	t.Parallel()
	const n = 50
	path := writeTextTurn(t, n)
	check := acptest.Load(t).NewChecker()
	var (
		text   strings.Builder
		chunks int
	)
	r, err := replayTurn(t.Context(), path, func(line []byte) {
		if err := check.AgentFrame(line); err != nil {
			t.Error(err)
		}
		var f struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			t.Errorf("session/update: %v: %s", err, line)
			return
		}
		if u := f.Params.Update; u.SessionUpdate == "agent_message_chunk" {
			chunks++
			if u.Content.Type != "text" {
				t.Errorf("chunk content type %q, want text", u.Content.Type)
			}
			text.WriteString(u.Content.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks != n || r.chunks != n {
		t.Errorf("agent_message_chunk updates: decoded %d, counted %d; want %d", chunks, r.chunks, n)
	}
	if got, want := text.String(), gen.Text(n); got != want {
		t.Errorf("chunk text =\n%q\nwant\n%q", got, want)
	}
	if r.stopReason != "end_turn" {
		t.Errorf("stopReason = %q, want end_turn", r.stopReason)
	}
	if r.updates < r.chunks {
		t.Errorf("counted %d updates but %d chunks", r.updates, r.chunks)
	}
	if r.maxRSS <= 0 {
		t.Errorf("peak RSS %d: not read", r.maxRSS)
	}
	if check.Checked() != r.updates {
		t.Errorf("schema-checked %d of %d updates", check.Checked(), r.updates)
	}
}

// writeTextTurn generates a fixture of one turn streaming n text deltas into
// a temporary directory and returns its path.
func writeTextTurn(tb testing.TB, n int) string {
	tb.Helper()
	fx := gen.TextTurn(n)
	fx.Path = filepath.Join(tb.TempDir(), fmt.Sprintf("text-%d.txtar", n))
	if err := fx.Save(); err != nil {
		tb.Fatal(err)
	}
	return fx.Path
}

// turnResult is what one replayed turn produced.
type turnResult struct {
	updates    int           // session/update frames before the prompt's answer
	chunks     int           // of which agent_message_chunk
	stopReason string        // from the prompt's answer
	prompt     time.Duration // session/prompt written to its answer read
	maxRSS     int64         // bytes, the bridge's peak resident set
}

// replayTurn runs the bridge on a fixture through one whole session:
// initialize, session/new, one session/prompt, stdin EOF and exit. onUpdate,
// if set, sees every session/update line (valid until it returns).
func replayTurn(ctx context.Context, path string, onUpdate func(line []byte)) (turnResult, error) {
	var r turnResult
	br, err := spawnBridge(ctx, path)
	if err != nil {
		return r, err
	}
	ok := false
	defer func() {
		if !ok {
			br.kill()
		}
	}()
	if _, err := br.initialize(); err != nil {
		return r, err
	}
	sessionID, err := br.newSession(br.dir)
	if err != nil {
		return r, err
	}
	count := func(line []byte) {
		r.updates++
		if bytes.Contains(line, []byte(`"sessionUpdate":"agent_message_chunk"`)) {
			r.chunks++
		}
		if onUpdate != nil {
			onUpdate(line)
		}
	}
	start := time.Now()
	res, err := br.call("session/prompt", map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": gen.Prompt}},
	}, count)
	r.prompt = time.Since(start)
	if err != nil {
		return r, err
	}
	var pr struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(res, &pr); err != nil {
		return r, fmt.Errorf("session/prompt answer %s: %v", res, err)
	}
	r.stopReason = pr.StopReason
	ok = true
	r.maxRSS, err = br.finish()
	return r, err
}

// rawBridge is an acpbridge child on raw pipes. Unlike startBridge it checks
// no schema, so the benchmarks time the bridge and not the checker; the
// conformance of these frames is the other end-to-end tests' job.
type rawBridge struct {
	proc    *bridgeproc.Proc
	cancel  context.CancelFunc
	stdin   io.WriteCloser
	out     *bufio.Reader
	stderr  *bridgeproc.Buffer
	dir     string    // the session's working directory
	started time.Time // just before the process was started
	nextID  int
	line    []byte       // reused by readLine
	paced   *pacedReader // under out, for children of the Claude benchmark
}

func spawnBridge(ctx context.Context, fixture string) (*rawBridge, error) {
	return spawnRaw(ctx, binPath, "replay", fixture)
}

// spawnBridgeArgs starts the bridge with args on raw pipes.
func spawnBridgeArgs(ctx context.Context, args ...string) (*rawBridge, error) {
	return spawnRaw(ctx, binPath, args...)
}

// spawnRaw starts any ACP agent process on raw pipes: the bridge, or (for
// side-by-side figures) the agent it wraps.
func spawnRaw(ctx context.Context, path string, args ...string) (*rawBridge, error) {
	dir, err := os.MkdirTemp("", "acpbridge-bench")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	started := time.Now()
	p, err := bridgeproc.Launch(path, bridgeproc.Options{Args: args, Raw: true, Context: ctx})
	if err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, err
	}
	return &rawBridge{proc: p, cancel: cancel, stdin: p.Stdin, stderr: p.Stderr, dir: dir, started: started,
		out: bufio.NewReaderSize(p.Stdout, 64<<10)}, nil
}

// wait waits for the process to exit and returns its exit.
func (b *rawBridge) wait() error {
	<-b.proc.Exited()
	return b.proc.Err()
}

// initialize performs the ACP handshake as an editor with file system and
// terminal support.
func (b *rawBridge) initialize() (json.RawMessage, error) {
	return b.call("initialize", map[string]any{
		"protocolVersion": 1,
		"clientCapabilities": map[string]any{
			"fs":       map[string]any{"readTextFile": true, "writeTextFile": true},
			"terminal": true,
		},
		"clientInfo": map[string]any{"name": "bench", "version": "1"},
	}, nil)
}

// call sends a request and reads frames until its answer, handing every
// session/update to onUpdate (if set). A request from the bridge or an
// error answer fails the call.
// newSession opens a session in cwd and returns its id.
func (b *rawBridge) newSession(cwd string) (string, error) {
	res, err := b.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, nil)
	if err != nil {
		return "", err
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &sess); err != nil || sess.SessionID == "" {
		return "", fmt.Errorf("session/new answer without a session id: %s", res)
	}
	return sess.SessionID, nil
}

func (b *rawBridge) call(method string, params any, onUpdate func([]byte)) (json.RawMessage, error) {
	b.nextID++
	id := b.nextID
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := b.stdin.Write(append(req, '\n')); err != nil {
		return nil, b.failure(fmt.Errorf("writing %s: %w", method, err))
	}
	for {
		line, err := b.readLine()
		if err != nil {
			return nil, b.failure(fmt.Errorf("awaiting the %s answer: %w", method, err))
		}
		// Fast path for the bulk of a turn; anything else is decoded.
		if bytes.Contains(line, []byte(`"method":"session/update"`)) {
			if onUpdate != nil {
				onUpdate(line)
			}
			continue
		}
		var f struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &f); err != nil {
			return nil, b.failure(fmt.Errorf("bridge wrote %q: %w", line, err))
		}
		switch {
		case f.Method == "session/update" && f.ID == nil:
			if onUpdate != nil {
				onUpdate(line)
			}
		case f.Method != "" && f.ID != nil:
			return nil, b.failure(fmt.Errorf("unexpected request from the bridge: %s", line))
		case f.Method != "":
			// another notification: not counted
		case f.ID == nil || *f.ID != id:
			return nil, b.failure(fmt.Errorf("answer to an unknown request: %s", line))
		case f.Error != nil:
			return nil, b.failure(fmt.Errorf("%s failed: %s", method, f.Error))
		default:
			return f.Result, nil
		}
	}
}

// readLine returns the next stdout line without its newline; it is valid
// until the next call.
func (b *rawBridge) readLine() ([]byte, error) {
	line, err := b.out.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		b.line = append(b.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = b.out.ReadSlice('\n')
			b.line = append(b.line, line...)
		}
		line = b.line
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return line[:len(line)-1], nil
}

// finish reads the bridge's peak RSS, then closes stdin, reads stdout to EOF
// and waits for a clean exit. The peak is in bytes.
func (b *rawBridge) finish() (int64, error) {
	defer b.cleanup()
	peak, hwmErr := peakRSS(b.proc.Cmd.Process.Pid)
	b.stdin.Close()
	for {
		line, err := b.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.wait()
			return 0, fmt.Errorf("reading stdout to EOF: %w; stderr:\n%s", err, b.stderr.String())
		}
		if !bytes.Contains(line, []byte(`"method":"session/update"`)) {
			b.wait()
			return 0, fmt.Errorf("bridge wrote %s after its last answer", line)
		}
	}
	if err := b.wait(); err != nil {
		return 0, fmt.Errorf("bridge exit: %w; stderr:\n%s", err, b.stderr.String())
	}
	if hwmErr == nil {
		return peak, nil
	}
	return maxRSS(b.proc.Cmd.ProcessState)
}

// kill ends a bridge after a failure.
func (b *rawBridge) kill() {
	defer b.cleanup()
	b.cancel()
	b.stdin.Close()
	io.Copy(io.Discard, b.out)
	b.wait()
}

func (b *rawBridge) cleanup() {
	b.cancel()
	b.proc.Close()
	os.RemoveAll(b.dir)
	if b.paced != nil {
		b.paced.f.Close() // exec does not close a pipe it did not make
	}
}

// failure adds the bridge's stderr to err.
func (b *rawBridge) failure(err error) error {
	return fmt.Errorf("%w; bridge stderr:\n%s", err, b.stderr.String())
}

// peakRSS reads a running process's peak resident set (VmHWM, Linux only)
// in bytes. It is the bridge's own figure: the rusage of a finished child is
// not, because on Linux a child started by fork/exec inherits its parent's
// high-water mark (the kernel folds the pre-exec address space into
// ru_maxrss), and this test process grows far beyond the bridge when it
// generates the big fixture.
func peakRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kib); err != nil {
				return 0, fmt.Errorf("parsing VmHWM %q: %w", v, err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// maxRSS is a finished process's peak resident set in bytes, where
// /proc is not available (getrusage reports KiB on Linux and the BSDs,
// bytes on macOS). It is an upper bound: see peakRSS.
func maxRSS(ps *os.ProcessState) (int64, error) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, fmt.Errorf("no rusage for the bridge process")
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), nil
	}
	return int64(ru.Maxrss) << 10, nil
}

// pacedReader reads a child's stdout from a blocking pipe, which the
// runtime's poller does not watch. While paced, each read first waits until
// pace has passed since the one before: the child's writes meanwhile wake
// no one, and one read takes them all. The streaming turn of every subject
// is read so, alike. Read one wake-up per write instead, 20,000 lines cost
// this process (which also serves the model, on the same two cores) ~150 ms
// more CPU for the raw CLI, which writes a line per delta, than for
// acpbridge, which writes in batches: the floor was slowed by its reader.
// The turn's end is seen at most one pace late, for every subject.
type pacedReader struct {
	f    *os.File
	pace time.Duration // 0: read as output comes
	last time.Time     // when the last read returned
}

// streamPace is the pace of the streaming turn's reads.
const streamPace = time.Millisecond

func (r *pacedReader) Read(b []byte) (int, error) {
	if d := r.pace - time.Since(r.last); r.pace > 0 && d > 0 {
		time.Sleep(d)
	}
	n, err := r.f.Read(b)
	r.last = time.Now()
	return n, err
}
