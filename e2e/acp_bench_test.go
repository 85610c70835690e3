//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The passthrough benchmarks run `acpbridge acp` on the scripted native-ACP
// agent (cmd/dev/acpagent), the way an editor would, and the agent alone on
// the same client code, side by side in one run:
//
//	passthrough-updates/s  session/update frames per second of a
//	                       100,000-update turn through the bridge binary
//	                       (target >= 500,000)
//	added-p50-ms           per-frame latency through the bridge minus the
//	added-p99-ms           agent's own, at the median and the 99th
//	                       percentile (targets < 0.2 and < 2)
//	MB-peak-RSS            the bridge's peak resident set (target < 20)

// timedUpdates is how many paced, timestamped updates one latency turn has.
const timedUpdates = 300

// BenchmarkPassthroughLatency runs, in each op, a "timed" turn straight
// from the agent and one through the bridge (in alternating order), and
// takes the latency of every frame: from the agent's wall clock just
// before it wrote the frame to this process reading it. Each figure is
// the median over the ops of that op's percentile, and added-* the median
// of each op's difference: the machine's own stalls (other processes on
// the same cores) hit one turn at a time and would otherwise decide the
// p99 of both subjects alike.
func BenchmarkPassthroughLatency(b *testing.B) {
	skipUnderRace(b)
	var agent50, agent99, bridge50, bridge99, added50, added99 []time.Duration
	var peak int64
	for i := 0; b.Loop(); i++ {
		var direct, bridged []time.Duration
		var rss int64
		var err error
		for _, bridge := range []bool{i%2 == 1, i%2 == 0} {
			if bridge {
				bridged, rss, err = timedTurn(b, binPath, "acp", "--", acpAgentPath)
			} else {
				direct, _, err = timedTurn(b, acpAgentPath)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		peak = max(peak, rss)
		slices.Sort(direct)
		slices.Sort(bridged)
		agent50, agent99 = append(agent50, pct(direct, 50)), append(agent99, pct(direct, 99))
		bridge50, bridge99 = append(bridge50, pct(bridged, 50)), append(bridge99, pct(bridged, 99))
		added50 = append(added50, pct(bridged, 50)-pct(direct, 50))
		added99 = append(added99, pct(bridged, 99)-pct(direct, 99))
	}
	ms := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(pct(ds, 50).Nanoseconds()) / 1e6
	}
	b.ReportMetric(ms(agent50), "agent-p50-ms")
	b.ReportMetric(ms(agent99), "agent-p99-ms")
	b.ReportMetric(ms(bridge50), "bridge-p50-ms")
	b.ReportMetric(ms(bridge99), "bridge-p99-ms")
	b.ReportMetric(ms(added50), "added-p50-ms")
	b.ReportMetric(ms(added99), "added-p99-ms")
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak-RSS")
}

// pct is the p-th percentile of sorted.
func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100]
}

// BenchmarkPassthroughStream times a 100,000-update turn through the
// bridge binary, from the prompt to its answer.
func BenchmarkPassthroughStream(b *testing.B) {
	skipUnderRace(b)
	const updates = 100_000
	var (
		took time.Duration
		peak int64
	)
	for b.Loop() {
		p, err := spawnRaw(b.Context(), binPath, "acp", "--", acpAgentPath)
		if err != nil {
			b.Fatal(err)
		}
		sid, err := open(p)
		if err != nil {
			p.kill()
			b.Fatal(err)
		}
		n := 0
		start := time.Now()
		_, err = p.call("session/prompt", promptParams(sid, fmt.Sprintf("stream %d", updates)), func(line []byte) {
			if bytes.Contains(line, []byte(`"agent_message_chunk"`)) {
				n++
			}
		})
		took += time.Since(start)
		if err != nil {
			p.kill()
			b.Fatal(err)
		}
		if n != updates+1 {
			p.kill()
			b.Fatalf("%d chunks, want %d", n, updates+1)
		}
		rss, err := p.finish()
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, rss)
	}
	b.ReportMetric(float64(b.N*updates)/took.Seconds(), "passthrough-updates/s")
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak-RSS")
}

// timedTurn runs one "timed" turn in a fresh process (path args) and
// returns each update's latency and the process's peak RSS.
func timedTurn(b *testing.B, path string, args ...string) ([]time.Duration, int64, error) {
	p, err := spawnRaw(b.Context(), path, args...)
	if err != nil {
		return nil, 0, err
	}
	sid, err := open(p)
	if err != nil {
		p.kill()
		return nil, 0, err
	}
	lat := make([]time.Duration, 0, timedUpdates)
	var bad error
	_, err = p.call("session/prompt", promptParams(sid, fmt.Sprintf("timed %d", timedUpdates)), func(line []byte) {
		now := time.Now().UnixNano()
		_, rest, ok := bytes.Cut(line, []byte(`"sent":`))
		if !ok {
			return // the turn's last chunk
		}
		end := bytes.IndexByte(rest, '}')
		sent, perr := strconv.ParseInt(string(rest[:max(end, 0)]), 10, 64)
		if perr != nil && bad == nil {
			bad = fmt.Errorf("update without a readable stamp: %s", line)
		}
		lat = append(lat, time.Duration(now-sent))
	})
	if err == nil {
		err = bad
	}
	if err == nil && len(lat) != timedUpdates {
		err = fmt.Errorf("%d stamped updates, want %d", len(lat), timedUpdates)
	}
	if err != nil {
		p.kill()
		return nil, 0, err
	}
	rss, err := p.finish()
	return lat, rss, err
}

// open initializes and opens a session.
func open(p *rawBridge) (string, error) {
	if _, err := p.initialize(); err != nil {
		return "", err
	}
	return p.newSession(p.dir)
}

func promptParams(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}
