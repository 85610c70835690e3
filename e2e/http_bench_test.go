package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// benchClients is how many remote clients run at once.
const benchClients = 50

// stampMeta is the _meta key carrying the time the adapter sent an update.
const stampMeta = "benchSentUnixNano"

// stampAdapter marks every session/update its adapter sends with the time
// it was sent, so a client can measure the delivery latency.
type stampAdapter struct{ bridge.Adapter }

func (a stampAdapter) NewSession(ctx context.Context, req acp.NewSessionRequest, c acp.Client) (acp.Session, error) {
	return a.Adapter.NewSession(ctx, req, stampClient{c})
}

type stampClient struct{ acp.Client }

func (c stampClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	meta := map[string]any{stampMeta: time.Now().UnixNano()}
	for k, v := range n.Meta {
		meta[k] = v
	}
	n.Meta = meta
	return c.Client.SessionUpdate(ctx, n)
}

// benchHTTPClient is shared by the benchmark's clients: enough idle
// connections that POSTs do not open new ones.
func benchHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * benchClients, MaxIdleConnsPerHost: 4 * benchClients}}
}

// BenchmarkHTTPDelivery runs the demo recording's session from 50 clients
// at once over the client_id wire shape on loopback (bridge in-process,
// each client with its own connection, permission requests answered by
// POST) and measures the delivery latency of a turn's session/update: from
// the adapter's call to the client reading the SSE event. (Updates sent
// while the session starts are left out: the bridge holds them, as ACP
// requires, until session/new is answered.) "burst" replays as
// fast as possible, so all 50 sessions produce at once and the figures are
// mostly queueing on the machine's cores; "paced" writes a recorded line
// every 5 ms per session, closer to a real agent.
func BenchmarkHTTPDelivery(b *testing.B) {
	skipUnderRace(b)
	for _, bc := range []struct {
		name string
		pace time.Duration
	}{{"burst", 0}, {"paced-5ms", 5 * time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) { benchDelivery(b, bc.pace) })
	}
}

func benchDelivery(b *testing.B, pace time.Duration) {
	fx, err := recording.Load(fixture("claude/demo.txtar"))
	if err != nil {
		b.Fatal(err)
	}
	a, err := replay.New(fx, replay.Options{Pace: pace, Wrap: func(l replay.Launch) acp.Adapter {
		return claude.New(claude.Options{Path: "claude", Launch: l, AwaitStart: true})
	}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- bridge.New(stampAdapter{a}, bridge.Options{}).ServeListener(ctx, ln, bridge.HTTPOptions{})
	}()
	defer func() {
		cancel()
		<-served
		a.Close()
	}()
	base, hc := "http://"+ln.Addr().String(), benchHTTPClient()
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		got, err := runClients(base, hc, fmt.Sprintf("d%d", i), true)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range got {
			lat = append(lat, l...)
		}
	}
	elapsed := b.Elapsed()
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "ms-p50-update")
	b.ReportMetric(pct(0.99), "ms-p99-update")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "delivered/s")
	b.ReportMetric(float64(b.N*benchClients)/elapsed.Seconds(), "sessions/s")
}

// runClients runs one demo session per client, all at once, and returns
// each client's update latencies. Unless end, the connections stay open.
func runClients(base string, hc *http.Client, prefix string, end bool) ([][]time.Duration, error) {
	out := make([][]time.Duration, benchClients)
	errs := make([]error, benchClients)
	var wg sync.WaitGroup
	for i := range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &benchClient{hc: hc, base: base, id: prefix + "-" + strconv.Itoa(i)}
			out[i], errs[i] = c.session()
			if end {
				errs[i] = errors.Join(errs[i], c.leave())
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// benchClient is a lean client_id client: no schema checks, so that what is
// measured is the bridge.
type benchClient struct {
	hc       *http.Client
	base, id string
	stream   io.ReadCloser
	lines    *bufio.Reader
}

func (c *benchClient) post(msg string) error {
	resp, err := c.hc.Post(c.base+"/acp/rpc?client_id="+c.id, "application/json", strings.NewReader(msg))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST: status %d", resp.StatusCode)
	}
	return nil
}

// event reads the next SSE data line and the time it was read.
func (c *benchClient) event() ([]byte, time.Time, error) {
	for {
		line, err := c.lines.ReadBytes('\n')
		if err != nil {
			return nil, time.Time{}, err
		}
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			return data, time.Now(), nil
		}
	}
}

// session opens the stream, runs initialize, session/new and the demo
// prompt (allowing every permission), and returns the update latencies.
func (c *benchClient) session() ([]time.Duration, error) {
	resp, err := c.hc.Get(c.base + "/acp/sse?client_id=" + c.id)
	if err != nil {
		return nil, err
	}
	c.stream, c.lines = resp.Body, bufio.NewReaderSize(resp.Body, 64<<10)
	var (
		lat     []time.Duration
		answers sync.WaitGroup // permission answers are POSTed aside, so reading never pauses
		failed  = make(chan error, 8)
	)
	defer answers.Wait()
	steps := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/home/user/project","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"Add a hello-world command"}]}}`,
	}
	sid := ""
	var turnStart int64 // updates sent before the prompt were held by the bridge until session/new was answered
	for i, step := range steps {
		if strings.Contains(step, "%s") {
			step = fmt.Sprintf(step, sid)
			turnStart = time.Now().UnixNano()
		}
		if err := c.post(step); err != nil {
			return nil, err
		}
		for {
			data, at, err := c.event()
			if err != nil {
				return nil, fmt.Errorf("reading the stream: %w", err)
			}
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
				Params struct {
					Meta map[string]json.Number `json:"_meta"`
				} `json:"params"`
				Result struct {
					SessionID string `json:"sessionId"`
				} `json:"result"`
			}
			json.Unmarshal(data, &m)
			if ns, err := m.Params.Meta[stampMeta].Int64(); err == nil && m.Method == "session/update" && turnStart != 0 && ns >= turnStart {
				lat = append(lat, at.Sub(time.Unix(0, ns)))
			}
			if m.Method == "session/request_permission" && m.ID != nil {
				answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`, *m.ID)
				answers.Go(func() {
					if err := c.post(answer); err != nil {
						failed <- err
					}
				})
			}
			if m.Method == "" && m.ID != nil && *m.ID == i+1 {
				sid = m.Result.SessionID
				break
			}
		}
	}
	answers.Wait()
	select {
	case err := <-failed:
		return nil, err
	default:
	}
	return lat, nil
}

// leave ends the connection (its session is closed) and the stream.
func (c *benchClient) leave() error {
	req, _ := http.NewRequest(http.MethodDelete, c.base+"/acp/sse?client_id="+c.id, nil)
	resp, err := c.hc.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if c.stream != nil {
		io.Copy(io.Discard, c.stream) // ends once the connection is closed
		c.stream.Close()
	}
	return err
}

// BenchmarkHTTPMemoryPerConnection runs the binary (`acpbridge serve replay`)
// and measures how much its resident memory grows per connection: 50
// clients each run the demo session and stay connected, with the session
// open and the stream attached.
func BenchmarkHTTPMemoryPerConnection(b *testing.B) {
	skipUnderRace(b)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	var perConn, total float64
	for i := range b.N {
		p, t, err := measureConnections(fmt.Sprintf("m%d", i))
		if err != nil {
			b.Fatal(err)
		}
		perConn += p
		total += t
	}
	b.ReportMetric(perConn/float64(b.N), "KB-RSS/conn")
	b.ReportMetric(total/float64(b.N), "MB-RSS-50-conns")
}

// measureConnections starts a bridge, warms it up with one session, then
// holds 50 connections open; it returns the RSS growth per connection (KB)
// and the RSS with them (MB).
func measureConnections(prefix string) (float64, float64, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	p, err := bridgeproc.Launch(binPath, bridgeproc.Options{Context: ctx, NoStdin: true, Stdout: io.Discard,
		Args:       []string{"--log-level", "info", "--log-format", "json", "serve", "--port", "0", "replay", fixture("claude/demo.txtar")},
		StderrLine: func(line string) { listenURL(line, urls) }})
	if err != nil {
		return 0, 0, err
	}
	defer func() { <-p.Exited() }()
	defer cancel()
	var base string
	select {
	case base = <-urls:
	case <-p.Exited():
		select {
		case base = <-urls:
		default:
			return 0, 0, errors.New("the bridge exited before listening")
		}
	}
	hc := benchHTTPClient()
	if _, err := runClients(base, hc, prefix+"-warm", true); err != nil {
		return 0, 0, err
	}
	before, err := vmRSS(p.Cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	if _, err := runClients(base, hc, prefix, false); err != nil {
		return 0, 0, err
	}
	after, err := vmRSS(p.Cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	return float64(after-before) / 1024 / benchClients, float64(after) / (1 << 20), nil
}

// listenURL sends to urls where the bridge listens, if its log line says
// so.
func listenURL(line string, urls chan<- string) {
	var m struct{ Message, URL string }
	if json.Unmarshal([]byte(line), &m) == nil && m.Message == "listening" {
		select {
		case urls <- strings.TrimSuffix(m.URL, "/acp"):
		default:
		}
	}
}

// vmRSS is a process's resident set size in bytes.
func vmRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

// skipUnderRace skips a benchmark of a -race build (every benchmark of
// this package, on any OS, shares it).
func skipUnderRace(b *testing.B) {
	if bridgeproc.Race {
		b.Skip("figures of a -race binary say nothing about the bridge; run without -race")
	}
}
