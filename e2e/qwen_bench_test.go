//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// BenchmarkQwen runs the pinned real Qwen Code offline two ways, in the
// same rounds, on the same scripted Chat Completions server: its native
// ACP through the passthrough (`acpbridge qwen`) and Claude Code's
// stream-JSON through the qwen dialect (`acpbridge stream-json --dialect
// qwen`). Each sample is a fresh bridge in a fresh HOME:
//
//	start        launch to session/new answered
//	first chunk  session/new sent to the first prompt's first text chunk
//	long turn    a 20,000-character answer in 2,000 deltas, prompt to answer
//	bridge RSS   the bridge's peak resident set
//	agent RSS    the sum of the peaks of the bridge's descendants (Qwen's tree)
//
// A second table splits launch to first chunk, from the bridge's trace
// (--trace) of each sample:
//
//	Qwen up      launch to Qwen's first line to the bridge (its answer to
//	             initialize: the ACP request, or the control request)
//	prompt in    launch to the bridge writing the first prompt to Qwen
//	first chunk  launch to the first text chunk
//
// b.N is the number of rounds (make bench-qwen: QWEN_ROUNDS, default 5);
// the tables give medians, RSS the largest; each sample is logged too, with
// the load average, as the machine's load moves these times a lot.
func BenchmarkQwen(b *testing.B) {
	a, _ := agentenv.Lookup("qwen")
	if _, err := a.Path(); err != nil {
		b.Skip(err)
	}
	subjects := []qwenSubject{
		{"native ACP", func(qwen string, extra []string) []string {
			return append([]string{"qwen", "--path", qwen, "--"}, extra...)
		}},
		{"stream-JSON", func(qwen string, extra []string) []string {
			return append([]string{"stream-json", "--dialect", "qwen", "--", qwen}, extra...)
		}},
	}
	samples := map[string][]qwenSample{}
	for round := range b.N {
		for _, s := range subjects {
			got, err := qwenBenchSample(b.Context(), s)
			if err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
			b.Logf("round %d, %s: start %v, first chunk %v, long turn %v; Qwen up %v, prompt in %v, first chunk %v after launch; load average %s",
				round+1, s.name, got.start.Round(time.Millisecond), got.first.Round(time.Millisecond), got.turn.Round(time.Millisecond),
				got.up.Round(time.Millisecond), got.promptIn.Round(time.Millisecond), got.firstAt.Round(time.Millisecond), loadAverage())
			samples[s.name] = append(samples[s.name], got)
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "Qwen Code %s, medians of %d rounds (RSS: the largest):\n", qwenVersion(), b.N)
	fmt.Fprintf(&t, "| | start | first chunk | long turn | bridge RSS | agent tree RSS |\n|---|---|---|---|---|---|\n")
	for _, s := range subjects {
		ss := samples[s.name]
		f := func(get func(qwenSample) time.Duration) float64 { return medianMs(ss, get) }
		var bridge, agent int64
		for _, x := range ss {
			bridge, agent = max(bridge, x.bridgeRSS), max(agent, x.agentRSS)
		}
		start, first, turn := f(func(x qwenSample) time.Duration { return x.start }),
			f(func(x qwenSample) time.Duration { return x.first }), f(func(x qwenSample) time.Duration { return x.turn })
		fmt.Fprintf(&t, "| %s | %.0f ms | %.0f ms | %.0f ms | %.1f MiB | %.1f MiB |\n", s.name, start, first, turn,
			float64(bridge)/(1<<20), float64(agent)/(1<<20))
		key := strings.ReplaceAll(strings.ToLower(s.name), " ", "-")
		b.ReportMetric(start, "start-ms-"+key)
		b.ReportMetric(first, "first-ms-"+key)
		b.ReportMetric(turn, "turn-ms-"+key)
		b.ReportMetric(float64(bridge)/(1<<20), "bridge-MB-"+key)
		b.ReportMetric(float64(agent)/(1<<20), "agent-MB-"+key)
	}
	fmt.Fprintf(&t, "\nlaunch to ... (medians):\n| | Qwen up | prompt in | first chunk |\n|---|---|---|---|\n")
	for _, s := range subjects {
		f := func(get func(qwenSample) time.Duration) float64 { return medianMs(samples[s.name], get) }
		fmt.Fprintf(&t, "| %s | %.0f ms | %.0f ms | %.0f ms |\n", s.name, f(func(x qwenSample) time.Duration { return x.up }),
			f(func(x qwenSample) time.Duration { return x.promptIn }), f(func(x qwenSample) time.Duration { return x.firstAt }))
	}
	b.Log("\n" + t.String())
}

type qwenSubject struct {
	name string
	args func(qwen string, extra []string) []string
}

type qwenSample struct {
	start, first, turn  time.Duration
	bridgeRSS, agentRSS int64
	// up, promptIn and firstAt are measured from launch (the trace).
	up, promptIn, firstAt time.Duration
}

// medianMs is the median, in milliseconds, of the times get reads from
// samples.
func medianMs(samples []qwenSample, get func(qwenSample) time.Duration) float64 {
	var v []float64
	for _, x := range samples {
		v = append(v, float64(get(x))/float64(time.Millisecond))
	}
	return median(v)
}

// qwenLong is the long turn's answer.
var qwenLong = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 445)[:20000]

func qwenBenchScenario() *modelserver.Scenario {
	return &modelserver.Scenario{Name: "qwen-bench", SideText: "Scripted session",
		Turns: []modelserver.Turn{
			{Match: "SAY-HELLO", Blocks: []modelserver.Block{{Type: "text", Text: "Hello from the scripted model.", Deltas: 4}}},
			{Match: "STREAM-LONG", DeltaDelayMS: -1, Blocks: []modelserver.Block{{Type: "text", Text: qwenLong, Deltas: 2000}}},
		}}
}

// qwenBenchSample is one bridge in a fresh world: start, a short turn, the
// long one, the peaks, stdin EOF.
func qwenBenchSample(ctx context.Context, s qwenSubject) (qwenSample, error) {
	var out qwenSample
	root, err := os.MkdirTemp("", "acpb-qwen-bench-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(root)
	srv := modelserver.New(qwenBenchScenario(), modelserver.Options{})
	defer srv.Close()
	env, err := agentenv.New("qwen", agentenv.Options{ModelURL: srv.Start(), Root: root})
	if err != nil {
		return out, err
	}
	argv := append([]string{binPath}, s.args(env.Argv[0], env.Argv[1+len(env.Agent.ACPArgs):])...)
	trace := filepath.Join(root, "trace.jsonl")
	a, err := startChild(ctx, argv, append(env.Env, "ACPBRIDGE_TRACE="+trace), env.Dir)
	if err != nil {
		return out, err
	}
	ok := false
	defer func() {
		if !ok {
			a.kill()
		}
	}()
	if _, err := a.initialize(); err != nil {
		return out, a.failure(err)
	}
	start := time.Now()
	sid, err := a.newSession(env.Dir)
	if err != nil {
		return out, a.failure(err)
	}
	out.start = time.Since(a.started)
	var first time.Time
	if _, err := a.prompt(sid, "SAY-HELLO please.", func(string) {
		if first.IsZero() {
			first = time.Now()
		}
	}); err != nil {
		return out, a.failure(err)
	}
	if first.IsZero() {
		return out, errors.New("the first prompt streamed no text")
	}
	out.first = first.Sub(start)
	out.firstAt = first.Sub(a.started)
	up, in, err := qwenPhases(trace, "SAY-HELLO")
	if err != nil {
		return out, err
	}
	out.up, out.promptIn = up.Sub(a.started), in.Sub(a.started)
	var text strings.Builder
	start = time.Now()
	if _, err := a.prompt(sid, "STREAM-LONG please.", func(t string) { text.WriteString(t) }); err != nil {
		return out, a.failure(err)
	}
	out.turn = time.Since(start)
	if text.String() != qwenLong {
		return out, fmt.Errorf("the long turn's text is %d characters, not the scripted %d", text.Len(), len(qwenLong))
	}
	for _, pid := range descendants(a.proc.Cmd.Process.Pid) {
		if rss, err := peakRSS(pid); err == nil {
			out.agentRSS += rss
		}
	}
	ok = true
	out.bridgeRSS, err = a.finishAgent()
	return out, err
}

// descendants are the processes below pid, children first.
func descendants(pid int) []int {
	var out []int
	for _, c := range bridgeproc.Children(pid) {
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}

// qwenVersion is the pinned Qwen Code's version.
func qwenVersion() string {
	a, _ := agentenv.Lookup("qwen")
	return a.Version
}

// qwenPhases reads a bridge trace up to the first prompt: when Qwen wrote
// its first line to the bridge, and when the bridge wrote it the prompt
// that contains marker.
func qwenPhases(path, marker string) (up, promptIn time.Time, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return up, promptIn, err
	}
	for line := range strings.Lines(string(data)) {
		var f struct {
			Time time.Time       `json:"time"`
			Dir  string          `json:"dir"`
			Msg  json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			return up, promptIn, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case f.Dir == "agent->bridge" && up.IsZero():
			up = f.Time
		case f.Dir == "bridge->agent" && strings.Contains(string(f.Msg), marker):
			return up, f.Time, nil
		}
	}
	return up, promptIn, fmt.Errorf("%s: no line from Qwen, or no prompt with %q written to it", path, marker)
}
