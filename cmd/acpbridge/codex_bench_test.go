//go:build linux

package main_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/modelserver"
)

// codexDeltas is the length of the streaming turn, in text deltas.
const codexDeltas = 20000

// BenchmarkCodex measures acpbridge on the real Codex CLI side by side with
// the raw app-server driven directly (the floor), on the same binary and
// the same scripted Responses server (in this process, on 127.0.0.1), with
// a fresh CODEX_HOME per sample. `make bench-codex` runs it. Each b.Loop
// iteration is one round: one sample of each subject, in an order that
// alternates between rounds. A sample is one process lifetime:
//
//	initialize (to its answer), session/new or thread/start (to its answer),
//	the cold path (from sending session/new or thread/start to the first
//	agent text of a prompt sent at its answer), then a second prompt
//	streaming codexDeltas text deltas (from sending it to the end of the
//	turn: the prompt's answer, or turn/completed), then the peak RSS of
//	the subject's own process (acpbridge's, not the app-server's).
//
// Reported: the medians per subject (bridge-*, raw-*: init-ms, new-ms,
// cold-ms, turn-ms; bridge-rss-MB the largest), cold-ms-over-raw (acpbridge
// cold path minus the raw one) and turn-ratio-vs-raw. The peer adapter
// (@agentclientprotocol/codex-acp) is not measured here yet.
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
	var bridge, raw []codexSample
	round := 0
	for b.Loop() {
		subjects := []func() codexSample{
			func() codexSample { return codexBridgeSample(b, bin, url) },
			func() codexSample { return codexRawSample(b, bin, url) },
		}
		if round%2 == 1 {
			slices.Reverse(subjects)
		}
		for i, f := range subjects {
			s := f()
			if (i == 0) == (round%2 == 0) {
				bridge = append(bridge, s)
			} else {
				raw = append(raw, s)
			}
		}
		round++
	}
	med := func(ss []codexSample, f func(codexSample) time.Duration) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = float64(f(s)) / float64(time.Millisecond)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	for _, subj := range []struct {
		name string
		ss   []codexSample
	}{{"bridge", bridge}, {"raw", raw}} {
		b.ReportMetric(med(subj.ss, func(s codexSample) time.Duration { return s.init }), subj.name+"-init-ms")
		b.ReportMetric(med(subj.ss, func(s codexSample) time.Duration { return s.new }), subj.name+"-new-ms")
		b.ReportMetric(med(subj.ss, func(s codexSample) time.Duration { return s.cold }), subj.name+"-cold-ms")
		b.ReportMetric(med(subj.ss, func(s codexSample) time.Duration { return s.turn }), subj.name+"-turn-ms")
	}
	var rss int64
	for _, s := range bridge {
		rss = max(rss, s.rss)
	}
	b.ReportMetric(float64(rss)/(1<<20), "bridge-rss-MB")
	coldB, coldR := med(bridge, func(s codexSample) time.Duration { return s.cold }), med(raw, func(s codexSample) time.Duration { return s.cold })
	turnB, turnR := med(bridge, func(s codexSample) time.Duration { return s.turn }), med(raw, func(s codexSample) time.Duration { return s.turn })
	b.ReportMetric(coldB-coldR, "cold-ms-over-raw")
	b.ReportMetric(turnB/turnR, "turn-ratio-vs-raw")
}

type codexSample struct {
	init, new, cold, turn time.Duration
	rss                   int64
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

func startCodexSubject(tb testing.TB, env *codexenv.Env, argv ...string) (*exec.Cmd, *lineConn) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env.Vars, env.Dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, &lineConn{w: stdin, r: bufio.NewReaderSize(out, 1<<20)}
}

// endCodexSubject closes the subject's stdin and waits for it to exit.
func endCodexSubject(tb testing.TB, cmd *exec.Cmd, c *lineConn) {
	t0 := time.Now()
	c.w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	if d := time.Since(t0); d > 2*time.Second {
		tb.Logf("%s took %v to exit after stdin EOF", filepath.Base(cmd.Path), d)
	}
}

func codexBridgeSample(tb testing.TB, bin, url string) codexSample {
	env, err := codexenv.New(tb.TempDir(), url, "")
	if err != nil {
		tb.Fatal(err)
	}
	cmd, c := startCodexSubject(tb, env, binPath, "codex", "--codex-path", bin)
	defer endCodexSubject(tb, cmd, c)
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
	if s.rss, err = peakRSS(cmd.Process.Pid); err != nil {
		tb.Fatal(err)
	}
	return s
}

func codexRawSample(tb testing.TB, bin, url string) codexSample {
	env, err := codexenv.New(tb.TempDir(), url, "")
	if err != nil {
		tb.Fatal(err)
	}
	cmd, c := startCodexSubject(tb, env, bin, "app-server")
	defer endCodexSubject(tb, cmd, c)
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
