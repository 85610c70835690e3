//go:build linux

package main_test

import (
	"bufio"
	"bytes"
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

	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// codexDeltas is the length of the streaming turn, in text deltas.
const codexDeltas = 20000

// BenchmarkCodex measures acpbridge on the real Codex CLI side by side with
// the peer adapter (@agentclientprotocol/codex-acp, pinned in bench/peer,
// run with CODEX_PATH at the same binary) and with the raw app-server
// driven directly (the floor), on the same binary and the same scripted
// Responses server (in this process, on 127.0.0.1), with a fresh
// CODEX_HOME per sample. `make bench-codex` runs it. Each b.Loop iteration
// is one round: one sample of each subject, in an order that rotates
// between rounds. A sample is one process lifetime:
//
//	initialize (to its answer), session/new or thread/start (to its answer),
//	the cold path (from sending session/new or thread/start to the first
//	agent text of a prompt sent at its answer), then a second prompt
//	streaming codexDeltas text deltas (from sending it to the end of the
//	turn: the prompt's answer, or turn/completed), then a second
//	session/new or thread/start in the now warm process (new2), then the
//	peak RSS of the subject's own process (the adapter's, not the
//	app-server's).
//
// acpbridge answers initialize before Codex has started and the peer
// after, so the first session/new carries the app-server's start for
// acpbridge only: setup-ms (initialize plus the first session/new),
// start-to-chunk-ms (initialize plus the cold path: from the first byte
// sent to the first agent text) and new2-ms compare like with like.
//
// Reported: the medians per subject (bridge-*, peer-*, raw-*: init-ms,
// new-ms, cold-ms, turn-ms, new2-ms, setup-ms, start-to-chunk-ms, rss-MB),
// cold-ms-over-raw (acpbridge cold path minus the raw one) and
// start-to-chunk-ms-over-raw, turn-ratio-vs-raw, the init,
// new, new2 and setup -ratio-vs-codex-peer and rss-ratio-vs-peer. Without
// node or the installed peer, the peer is left out (make bench-codex
// installs it).
func BenchmarkCodex(b *testing.B) {
	skipUnderRace(b)
	bin := codexenv.Require(b)
	sc := &modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "cold", Times: 1 << 20, DeltaDelayMS: -1, Blocks: []modelserver.Block{modelserver.Text("Cold path answer.")}},
		{Match: "stream", Times: 1 << 20, DeltaDelayMS: -1, Blocks: []modelserver.Block{{Type: modelserver.BlockText,
			Text: strings.Repeat("w ", codexDeltas), Deltas: codexDeltas}}},
	}}
	srv := modelserver.New(sc, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	type subject struct {
		name   string
		sample func() codexSample
	}
	subjects := []subject{
		{"bridge", func() codexSample {
			return codexACPSample(b, bin, url, []string{binPath, "codex", "--codex-path", bin}, nil)
		}},
		{"raw", func() codexSample { return codexRawSample(b, bin, url) }},
	}
	if node, peer := codexPeer(); peer != "" {
		subjects = append(subjects, subject{"peer", func() codexSample {
			return codexACPSample(b, bin, url, []string{node, peer}, []string{"CODEX_PATH=" + bin})
		}})
	} else {
		b.Log("peer adapter not installed (make bench-codex installs it; node is needed too): not measured")
	}
	samples := map[string][]codexSample{}
	round := 0
	for b.Loop() {
		for i := range subjects {
			subj := subjects[(i+round)%len(subjects)]
			samples[subj.name] = append(samples[subj.name], subj.sample())
		}
		round++
	}
	reportCodex(b, samples)
}

// codexPeer returns node and the peer adapter's entry script, or "" when
// either is missing.
func codexPeer() (node, peer string) {
	peer = filepath.Join(repoRoot(), "bench", "peer", "node_modules", "@agentclientprotocol", "codex-acp", "dist", "index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(peer); serr != nil || err != nil {
		return "", ""
	}
	return node, peer
}

func reportCodex(b *testing.B, samples map[string][]codexSample) {
	med := func(ss []codexSample, f func(codexSample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	metrics := []struct {
		name string
		f    func(codexSample) float64
	}{
		{"init-ms", func(s codexSample) float64 { return ms(s.init) }},
		{"new-ms", func(s codexSample) float64 { return ms(s.new) }},
		{"cold-ms", func(s codexSample) float64 { return ms(s.cold) }},
		{"turn-ms", func(s codexSample) float64 { return ms(s.turn) }},
		{"new2-ms", func(s codexSample) float64 { return ms(s.new2) }},
		{"setup-ms", func(s codexSample) float64 { return ms(s.init + s.new) }},
		{"start-to-chunk-ms", func(s codexSample) float64 { return ms(s.init + s.cold) }},
		{"rss-MB", func(s codexSample) float64 { return float64(s.rss) / (1 << 20) }},
	}
	fig := map[string]map[string]float64{}
	for _, name := range []string{"bridge", "peer", "raw"} {
		ss := samples[name]
		if len(ss) == 0 {
			continue
		}
		fig[name] = map[string]float64{}
		for _, m := range metrics {
			if name == "raw" && m.name == "rss-MB" {
				continue // the floor has no adapter process
			}
			v := med(ss, m.f)
			fig[name][m.name] = v
			b.ReportMetric(v, name+"-"+m.name)
		}
	}
	br, raw := fig["bridge"], fig["raw"]
	b.ReportMetric(br["cold-ms"]-raw["cold-ms"], "cold-ms-over-raw")
	b.ReportMetric(br["start-to-chunk-ms"]-raw["start-to-chunk-ms"], "start-to-chunk-ms-over-raw")
	b.ReportMetric(br["turn-ms"]/raw["turn-ms"], "turn-ratio-vs-raw")
	if peer, ok := fig["peer"]; ok {
		b.ReportMetric(br["init-ms"]/peer["init-ms"], "init-ratio-vs-codex-peer")
		b.ReportMetric(br["new-ms"]/peer["new-ms"], "new-ratio-vs-codex-peer")
		b.ReportMetric(br["new2-ms"]/peer["new2-ms"], "new2-ratio-vs-codex-peer")
		b.ReportMetric(br["setup-ms"]/peer["setup-ms"], "setup-ratio-vs-codex-peer")
		b.ReportMetric(br["rss-MB"]/peer["rss-MB"], "rss-ratio-vs-peer")
	}
}

type codexSample struct {
	init, new, cold, turn, new2 time.Duration
	rss                         int64
}

// lineConn is a minimal newline-JSON peer over a child's stdio: it sends
// raw lines and waits for a line containing a marker, without decoding
// the lines in between (so reading costs the same for both subjects).
type lineConn struct {
	w io.WriteCloser
	r *bufio.Reader
}

func (c *lineConn) send(tb testing.TB, line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// await reads until a line holds every marker and returns that line.
func (c *lineConn) await(tb testing.TB, markers ...string) []byte {
	for {
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			var more []byte
			more, err = c.r.ReadBytes('\n')
			line = append(append([]byte{}, line...), more...)
		}
		if err != nil {
			tb.Fatalf("reading: %v (waiting for %q)", err, markers)
		}
		ok := true
		for _, m := range markers {
			if !bytes.Contains(line, []byte(m)) {
				ok = false
				break
			}
		}
		if ok {
			return line
		}
	}
}

func startCodexSubject(tb testing.TB, env *codexenv.Env, argv ...string) (*bridgeproc.Proc, *lineConn) {
	// Its own process group: what it leaves behind (an app-server the
	// peer does not stop) is killed with it.
	p, err := bridgeproc.Launch(argv[0], bridgeproc.Options{Args: argv[1:], Env: env.Vars, Dir: env.Dir, Raw: true, Group: true})
	if err != nil {
		tb.Fatal(err)
	}
	return p, &lineConn{w: p.Stdin, r: bufio.NewReaderSize(p.Stdout, 1<<20)}
}

// endCodexSubject closes the subject's stdin and waits for it to exit.
func endCodexSubject(tb testing.TB, p *bridgeproc.Proc, c *lineConn) {
	t0 := time.Now()
	c.w.Close()
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
		<-p.Exited()
	}
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	p.Close()
	if d := time.Since(t0); d > 2*time.Second {
		tb.Logf("%s took %v to exit after stdin EOF", filepath.Base(p.Cmd.Path), d)
	}
}

// codexACPSample runs one sample of an ACP adapter of Codex (argv, with
// extra environment): acpbridge or the peer.
func codexACPSample(tb testing.TB, bin, url string, argv, extraEnv []string) codexSample {
	env, err := codexenv.New(tb.TempDir(), url, "")
	if err != nil {
		tb.Fatal(err)
	}
	env.Vars = append(env.Vars, extraEnv...)
	proc, c := startCodexSubject(tb, env, argv...)
	defer endCodexSubject(tb, proc, c)
	var s codexSample
	t0 := time.Now()
	c.send(tb, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	c.await(tb, `"id":1`, `"result"`)
	s.init = time.Since(t0)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, env.Dir))
	line := c.await(tb, `"id":2`, `"result"`)
	s.new = time.Since(t0)
	sid := field(line, `"sessionId":"`)
	c.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"cold"}]}}`, sid))
	c.await(tb, `agent_message_chunk`)
	s.cold = time.Since(t0)
	c.await(tb, `"id":3`, `"stopReason"`)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"stream"}]}}`, sid))
	c.await(tb, `"id":4`, `"stopReason"`)
	s.turn = time.Since(t0)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, env.Dir))
	c.await(tb, `"id":5`, `"result"`)
	s.new2 = time.Since(t0)
	if s.rss, err = peakRSS(proc.Cmd.Process.Pid); err != nil {
		tb.Fatal(err)
	}
	return s
}

func codexRawSample(tb testing.TB, bin, url string) codexSample {
	env, err := codexenv.New(tb.TempDir(), url, "")
	if err != nil {
		tb.Fatal(err)
	}
	proc, c := startCodexSubject(tb, env, bin, "app-server")
	defer endCodexSubject(tb, proc, c)
	var s codexSample
	t0 := time.Now()
	c.send(tb, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","title":"bench","version":"1"},"capabilities":{"experimentalApi":true}}}`)
	c.await(tb, `"id":1`, `"result"`)
	s.init = time.Since(t0)
	c.send(tb, `{"method":"initialized"}`)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"id":2,"method":"thread/start","params":{"cwd":%q}}`, env.Dir))
	line := c.await(tb, `"id":2`, `"result"`)
	s.new = time.Since(t0)
	tid := field(line, `"thread":{"id":"`)
	c.send(tb, fmt.Sprintf(`{"id":3,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"cold","text_elements":[]}]}}`, tid))
	c.await(tb, `item/agentMessage/delta`)
	s.cold = time.Since(t0)
	c.await(tb, `turn/completed`)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"id":4,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"stream","text_elements":[]}]}}`, tid))
	c.await(tb, `turn/completed`)
	s.turn = time.Since(t0)
	t0 = time.Now()
	c.send(tb, fmt.Sprintf(`{"id":5,"method":"thread/start","params":{"cwd":%q}}`, env.Dir))
	c.await(tb, `"id":5`, `"result"`)
	s.new2 = time.Since(t0)
	return s
}

// field returns the string value that follows prefix in line.
func field(line []byte, prefix string) string {
	_, after, ok := bytes.Cut(line, []byte(prefix))
	if !ok {
		return ""
	}
	v, _, _ := bytes.Cut(after, []byte(`"`))
	return string(v)
}
