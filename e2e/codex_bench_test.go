//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
//	turn as a client sees it: reading and decoding every line, as a
//	client must, until it has the prompt's answer, or turn/completed,
//	and the whole answer's text), then a second
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
// The streaming turn used to be timed by scanning lines for a marker,
// without decoding them: the client's own cost per frame (20,000 frames
// from either subject) was left out, though on a machine of two cores a
// real client's parsing competes with Codex and the adapter for the same
// CPU, and whether the text had all arrived was not checked.
//
// Reported: the medians per subject (bridge-*, base-*, peer-*, raw-*:
// init-ms, new-ms, cold-ms, turn-ms, new2-ms, setup-ms, start-to-chunk-ms,
// rss-MB; for the streaming turn the frames the client read and the CPU
// the subject, the adapter alone and this process, client and model
// server, used), cold-ms-over-raw (acpbridge cold path minus the raw one)
// and start-to-chunk-ms-over-raw, turn-ratio-vs-raw (of the medians) and
// *-turn-ratio-vs-raw-paired (the median of each round's ratio: the
// machine's noise swings a turn by half between rounds), the init,
// new, new2 and setup -ratio-vs-codex-peer and rss-ratio-vs-peer. Without
// node or the installed peer, the peer is left out (make bench-codex
// installs it). CODEX_BASELINE names another acpbridge binary (an earlier
// build) to measure as "base" beside this one.
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
	if base := os.Getenv("CODEX_BASELINE"); base != "" {
		// Another acpbridge binary (an earlier build, say), measured
		// beside this one.
		subjects = append(subjects, subject{"base", func() codexSample {
			return codexACPSample(b, bin, url, []string{base, "codex", "--codex-path", bin}, nil)
		}})
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
			smp := subj.sample()
			b.Logf("round %d %s: turn %v, %d frames, cpu %v (adapter %v), client cpu %v", round, subj.name, smp.turn.Round(time.Millisecond), smp.frames,
				smp.cpu, smp.adapterCPU, smp.clientCPU.Round(time.Millisecond))
			samples[subj.name] = append(samples[subj.name], smp)
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
		{"turn-frames", func(s codexSample) float64 { return float64(s.frames) }},
		{"turn-cpu-ms", func(s codexSample) float64 { return ms(s.cpu) }},
		{"turn-client-cpu-ms", func(s codexSample) float64 { return ms(s.clientCPU) }},
		{"turn-adapter-cpu-ms", func(s codexSample) float64 { return ms(s.adapterCPU) }},
	}
	fig := map[string]map[string]float64{}
	for _, name := range []string{"bridge", "base", "peer", "raw"} {
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
	// The same per round, then the median: a round's subjects run one
	// after the other, so they share its share of the machine's noise.
	for _, name := range []string{"bridge", "base", "peer"} {
		ss, rs := samples[name], samples["raw"]
		if len(ss) == 0 || len(ss) != len(rs) {
			continue
		}
		r := make([]float64, len(ss))
		for i := range ss {
			r[i] = float64(ss[i].turn) / float64(rs[i].turn)
		}
		slices.Sort(r)
		b.ReportMetric(r[len(r)/2], name+"-turn-ratio-vs-raw-paired")
	}
	if base, ok := fig["base"]; ok {
		b.ReportMetric(base["turn-ms"]/raw["turn-ms"], "base-turn-ratio-vs-raw")
	}
	if peer, ok := fig["peer"]; ok {
		b.ReportMetric(peer["turn-ms"]/raw["turn-ms"], "peer-turn-ratio-vs-raw")
	}
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
	// frames and text are what the client read during the streaming
	// turn: lines, and bytes of agent text.
	frames, text int
	// cpu is the CPU time the subject (the adapter and its app-server;
	// the raw app-server alone) used during the streaming turn, adapterCPU
	// the adapter's own share, clientCPU this process's (the client and
	// the model server).
	cpu, adapterCPU, clientCPU time.Duration
}

// treeCPU is the CPU time (user and system) used so far by pid and the
// processes it started (their own groups included: the adapters start
// their agent in one of its own), as /proc has them; zero without it.
func treeCPU(pid int) time.Duration {
	type stat struct{ ppid, ticks int64 }
	all := map[int64]stat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		// After the command (which may hold spaces): state ppid pgrp
		// ...; utime and stime are the 14th and 15th fields.
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.ParseInt(f[1], 10, 64)
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		all[id] = stat{ppid, u + st}
	}
	var ticks int64
	for id, st := range all {
		for a := id; a > 1; a = all[a].ppid {
			if a == int64(pid) {
				ticks += st.ticks
				break
			}
			if _, ok := all[a]; !ok {
				break
			}
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// ownCPU is the CPU time pid itself has used so far.
func ownCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100
}

// selfCPU is the CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clientFrame is any JSON-RPC message, as a client decodes it.
type clientFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func decodeFrame(tb testing.TB, data []byte, v any) {
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatalf("decoding %.200s: %v", data, err)
	}
}

// collect reads as a client does, decoding every line, until end says the
// turn is over; text returns each frame's agent text. It returns how many
// lines it read and how many bytes of text they carried, and fails unless
// that is the whole streamed answer: a turn counts once the client has it
// all.
func (c *lineConn) collect(tb testing.TB, text func(*clientFrame) (string, bool)) (frames, n int) {
	for {
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			var more []byte
			more, err = c.r.ReadBytes('\n')
			line = append(append([]byte{}, line...), more...)
		}
		if err != nil {
			tb.Fatalf("reading: %v (after %d lines, %d bytes of text)", err, frames, n)
		}
		frames++
		var f clientFrame
		decodeFrame(tb, line, &f)
		t, end := text(&f)
		n += len(t)
		if end {
			break
		}
	}
	if want := 2 * codexDeltas; n != want {
		tb.Fatalf("the client got %d bytes of agent text by the end of the turn, want %d", n, want)
	}
	return frames, n
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
	cpu0, own0, self0 := treeCPU(proc.Cmd.Process.Pid), ownCPU(proc.Cmd.Process.Pid), selfCPU()
	c.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"stream"}]}}`, sid))
	s.frames, s.text = c.collect(tb, func(f *clientFrame) (string, bool) {
		if f.Method == "session/update" {
			var p struct {
				Update struct {
					Kind    string `json:"sessionUpdate"`
					Content struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"update"`
			}
			decodeFrame(tb, f.Params, &p)
			if p.Update.Kind == "agent_message_chunk" {
				return p.Update.Content.Text, false
			}
		}
		return "", string(f.ID) == "4" && f.Method == ""
	})
	s.turn = time.Since(t0)
	s.cpu, s.adapterCPU, s.clientCPU = treeCPU(proc.Cmd.Process.Pid)-cpu0, ownCPU(proc.Cmd.Process.Pid)-own0, selfCPU()-self0
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
	cpu0, self0 := treeCPU(proc.Cmd.Process.Pid), selfCPU()
	c.send(tb, fmt.Sprintf(`{"id":4,"method":"turn/start","params":{"threadId":%q,"input":[{"type":"text","text":"stream","text_elements":[]}]}}`, tid))
	s.frames, s.text = c.collect(tb, func(f *clientFrame) (string, bool) {
		if f.Method == "item/agentMessage/delta" {
			var p struct {
				Delta string `json:"delta"`
			}
			decodeFrame(tb, f.Params, &p)
			return p.Delta, false
		}
		return "", f.Method == "turn/completed"
	})
	s.turn = time.Since(t0)
	s.cpu, s.clientCPU = treeCPU(proc.Cmd.Process.Pid)-cpu0, selfCPU()-self0
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
