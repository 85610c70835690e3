package native_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/bridge"
)

// passthrough is the scripted agent (a real process) behind the adapter and
// the whole bridge, with a session open: the editor's side written and read
// in process.
type passthrough struct {
	tb       testing.TB
	requests chan<- string
	r        *bufio.Reader
	session  string
}

func startPassthrough(tb testing.TB) *passthrough {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	ad := native.New(native.Options{Name: "acpagent", Path: exe, Env: []string{agentEnv + "=1"}})
	srv := bridge.New(ad, bridge.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	requests := make(chan string, 4)
	go func() {
		for r := range requests {
			io.WriteString(inW, r)
		}
	}()
	tb.Cleanup(func() {
		close(requests)
		inW.Close()
		cancel()
		<-served
		ad.Close()
	})
	p := &passthrough{tb: tb, requests: requests, r: bufio.NewReaderSize(outR, 1<<20)}
	requests <- `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	p.readUntil(`"id":1,`)
	requests <- fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", tb.TempDir())
	p.session = readSessionID(tb, p.r)
	p.readUntil(`"available_commands_update"`) // sent right after the answer
	return p
}

// readUntil reads frames until one contains marker, counting updates.
func (p *passthrough) readUntil(marker string) int {
	n := 0
	for {
		line, err := p.r.ReadSlice('\n')
		if err != nil {
			p.tb.Fatal(err)
		}
		if bytes.Contains(line, []byte(`"session/update"`)) {
			n++
		}
		if bytes.Contains(line, []byte(marker)) {
			return n
		}
	}
}

// turn runs one prompt turn in which the agent streams n updates, and
// fails unless all of them and the usage update reach the editor.
func (p *passthrough) turn(id, n int) {
	p.requests <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"stream %d"}]}}`+"\n", id, p.session, n)
	if got := p.readUntil(fmt.Sprintf(`"id":%d,"result"`, id)); got != n+1 {
		p.tb.Fatalf("%d updates, want %d", got, n+1)
	}
}

// BenchmarkPassthroughTurn streams a 100,000-update turn from the scripted
// agent (a real process) through the adapter and the whole bridge, with the
// editor's side read and dropped, and reports updates/s. The agent's own
// cost is included: it is the passthrough throughput figure
// (target ≥ 500,000 updates/s, cmd/dev/benchtable), not the bridge's alone.
func BenchmarkPassthroughTurn(b *testing.B) {
	const updates = 100_000
	p := startPassthrough(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p.turn(10+i, updates)
	}
	b.ReportMetric(float64(b.N*updates)/b.Elapsed().Seconds(), "passthrough-updates/s")
}

func readSessionID(tb testing.TB, r *bufio.Reader) string {
	line, err := r.ReadBytes('\n')
	if err != nil {
		tb.Fatal(err)
	}
	_, rest, ok := bytes.Cut(line, []byte(`"sessionId":"`))
	id, _, ok2 := bytes.Cut(rest, []byte(`"`))
	if !ok || !ok2 {
		tb.Fatalf("session/new answer %s", line)
	}
	return string(id)
}

// BenchmarkEchoRoundTrip sends one extension request at a time to the
// scripted agent and waits for its answer, once straight to the agent's
// process and once through the adapter and the bridge, and reports the
// p50 and p99 round trip of each: the bridge's added latency is the
// difference (two frames per round trip).
func BenchmarkEchoRoundTrip(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("agent", func(b *testing.B) {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), agentEnv+"=1")
		w, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() {
			w.Close()
			cmd.Wait()
		}()
		roundTrips(b, w, bufio.NewReader(out))
	})
	b.Run("bridge", func(b *testing.B) {
		ad := native.New(native.Options{Name: "acpagent", Path: exe, Env: []string{agentEnv + "=1"}})
		defer ad.Close()
		srv := bridge.New(ad, bridge.Options{})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan struct{})
		go func() {
			defer close(served)
			srv.ServeStdio(context.Background(), inR, outW)
			outW.Close()
		}()
		defer func() {
			inW.Close()
			<-served
		}()
		roundTrips(b, inW, bufio.NewReader(outR))
	})
}

// roundTrips initializes, then times b.N echo requests.
func roundTrips(b *testing.B, w io.Writer, r *bufio.Reader) {
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"_acpagent/echo","params":{"n":%d}}`+"\n", i+2, i)
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
