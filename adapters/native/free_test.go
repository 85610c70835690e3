package native_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/native"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// procs counts the scripted agent processes an adapter starts and those
// that have exited (their reader saw the end and reaped them).
type procs struct {
	started, exited atomic.Int32
	exits           chan int    // the pid of each exit
	sent            chan string // the method of each request sent to an agent

	mu   sync.Mutex
	pids []int // guarded by mu; of the agents started, in order
}

func (ps *procs) launch(ctx context.Context, spec proc.Spec) (proc.Process, error) {
	p, err := proc.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	ps.mu.Lock()
	ps.pids = append(ps.pids, p.Pid())
	ps.mu.Unlock()
	ps.started.Add(1)
	return &trackedProc{Process: p, ps: ps}, nil
}

// pid is the pid of the i-th agent started.
func (ps *procs) pid(i int) int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.pids[i]
}

func (ps *procs) live() int32 { return ps.started.Load() - ps.exited.Load() }

// waitExits waits for n more agent exits and returns their pids.
func (ps *procs) waitExits(t *testing.T, n int, why string) []int {
	t.Helper()
	var pids []int
	deadline := time.After(wait)
	for len(pids) < n {
		select {
		case pid := <-ps.exits:
			pids = append(pids, pid)
		case <-deadline:
			t.Fatalf("%d of %d agents exited within %v (%s)", len(pids), n, wait, why)
		}
	}
	return pids
}

type trackedProc struct {
	proc.Process
	ps   *procs
	once sync.Once
}

func (p *trackedProc) Wait() error {
	err := p.Process.Wait()
	p.once.Do(func() {
		p.ps.exited.Add(1)
		p.ps.exits <- p.Pid()
	})
	return err
}

// loginClient is an editor connection's client as the adapter sees it for
// requests that name no session: under acpbridge serve each HTTP client
// has its own login.
type loginClient struct {
	acp.RawClient
	auth json.RawMessage
}

func (c loginClient) InitializeParams() json.RawMessage   { return nil }
func (c loginClient) AuthenticateParams() json.RawMessage { return c.auth }

func login(i int) loginClient {
	return loginClient{auth: json.RawMessage(fmt.Sprintf(`{"methodId":"key","_meta":{"client":%d}}`, i))}
}

// freeAdapter is the adapter for the scripted agent with o's bounds on
// free agents, initialized, closed when the test ends.
func freeAdapter(t *testing.T, maxIdle int, timeout time.Duration) (*native.Adapter, *procs) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ps := &procs{exits: make(chan int, 100), sent: make(chan string, 100)}
	trace := func(toAgent bool, line []byte) {
		var f frame
		if toAgent && json.Unmarshal(line, &f) == nil && f.Method != "" && len(f.ID) > 0 {
			select {
			case ps.sent <- f.Method:
			default:
			}
		}
	}
	a := native.New(native.Options{Name: "acpagent", Path: exe, Env: []string{agentEnv + "=1"},
		StopGrace: 200 * time.Millisecond, Logger: zerolog.New(zerolog.NewTestWriter(t)), Trace: trace,
		MaxIdleFree: maxIdle, FreeIdleTimeout: timeout, Launch: ps.launch})
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
		if live := ps.live(); live != 0 {
			t.Errorf("%d agents left running after Close", live)
		}
	})
	if _, err := a.Initialize(t.Context(), json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{}}`)); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return a, ps
}

func list(t *testing.T, a *native.Adapter, c loginClient) {
	t.Helper()
	if _, err := a.Forward(t.Context(), "session/list", json.RawMessage(`{}`), c); err != nil {
		t.Fatalf("session/list as %s: %v", c.auth, err)
	}
}

// TestFreeAgentsBounded: N+1 logins (HTTP clients under serve) asking
// session-less requests leave at most N idle agents serving no session:
// the least recently used go, the one started at initialize stays for the
// first session, and a login whose agent went gets a new one.
func TestFreeAgentsBounded(t *testing.T) {
	t.Parallel()
	const n = 2
	a, ps := freeAdapter(t, n, -1)
	for i := range n + 1 {
		list(t, a, login(i))
	}
	// initialize's agent and one per login: the two least recently used
	// logins' agents go, not initialize's, older but kept for the first
	// session.
	for _, pid := range ps.waitExits(t, 2, "past the bound") {
		if pid == ps.pid(0) {
			t.Errorf("the agent started at initialize was stopped")
		}
	}
	if live := ps.live(); live != n {
		t.Fatalf("%d agents running, want %d", live, n)
	}
	list(t, a, login(n))
	if got := ps.started.Load(); got != n+2 {
		t.Errorf("%d agents started after the last login asked again, want %d (its agent kept)", got, n+2)
	}
	list(t, a, login(0))
	if got := ps.started.Load(); got != n+3 {
		t.Errorf("%d agents started after the first login asked again, want %d (its agent was stopped)", got, n+3)
	}
	ps.waitExits(t, 1, "past the bound again")
	if live := ps.live(); live != n {
		t.Errorf("%d agents running, want %d", live, n)
	}
}

// TestFreeAgentIdleTimeout: an agent serving no session is stopped once
// idle for FreeIdleTimeout, the one started at initialize too, but not
// while a request is under way on it.
func TestFreeAgentIdleTimeout(t *testing.T) {
	t.Parallel()
	a, ps := freeAdapter(t, 0, 300*time.Millisecond)
	// login 1's agent is started for a request it holds until poked: busy.
	held := make(chan error, 1)
	go func() {
		_, err := a.Forward(context.Background(), "_acpagent/hold", json.RawMessage(`{}`), login(1))
		held <- err
	}()
	for m := ""; m != "_acpagent/hold"; {
		select {
		case m = <-ps.sent:
		case <-time.After(wait):
			t.Fatalf("_acpagent/hold not sent within %v", wait)
		}
	}
	// A new login's agent, filed after login 1's: once it has timed out,
	// so would login 1's have, were it not busy.
	list(t, a, login(2))
	busy := ps.pid(1) // initialize's is the first
	for _, pid := range ps.waitExits(t, 2, "initialize's agent and login 2's idle past the timeout") {
		if pid == busy {
			t.Fatalf("the agent with a request under way was stopped")
		}
	}
	if live := ps.live(); live != 1 {
		t.Fatalf("%d agents running, want 1: the busy one", live)
	}
	select {
	case err := <-held:
		t.Fatalf("the held request ended before the poke: %v", err)
	default:
	}
	if err := a.Notify(t.Context(), "_acpagent/poke", json.RawMessage(`{}`), login(1)); err != nil {
		t.Fatalf("poking the busy agent: %v", err)
	}
	if err := <-held; err != nil {
		t.Fatalf("the held request: %v", err)
	}
	ps.waitExits(t, 1, "login 1's agent idle past the timeout")
	if live := ps.live(); live != 0 {
		t.Errorf("%d agents running, want none", live)
	}
}
