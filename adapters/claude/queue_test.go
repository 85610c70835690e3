package claude

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// flood is how many lines the CLI writes in one go in these tests: several
// times what the event queue holds.
const flood = 4 * queueEvents

func delta(i int) string {
	return fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%d "}}}`, i)
}

const (
	turnResult = `{"type":"result","subtype":"success","is_error":false,"stop_reason":"end_turn","result":"done"}`
	idleStatus = `{"type":"system","subtype":"status","status":null}`
)

func answer(req gjson.Result, body string) string {
	return `{"type":"control_response","response":{"subtype":"success","request_id":"` +
		req.Get("request_id").String() + `","response":` + body + `}}`
}

// stdin reads the CLI's stdin on a goroutine of its own, as the real CLI
// does while it writes, and sorts what the host sends. wait returns at
// stdin EOF, which the session's Close brings.
type stdin struct {
	users, requests, answers chan gjson.Result
	done                     chan struct{}
}

func readStdin(c *cli) *stdin {
	s := &stdin{users: make(chan gjson.Result, 8), requests: make(chan gjson.Result, 8),
		answers: make(chan gjson.Result, 8), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			m, err := c.next()
			if err != nil {
				return
			}
			switch m.Get("type").String() {
			case "user":
				s.users <- m
			case "control_request":
				s.requests <- m
			case "control_response":
				s.answers <- m
			}
		}
	}()
	return s
}

func (s *stdin) wait() error {
	<-s.done
	return io.EOF
}

// chunks counts the agent text an editor was sent.
type chunks struct {
	mu   sync.Mutex
	n    int
	text strings.Builder
}

func (c *chunks) add(n acp.SessionNotification) {
	if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
		c.mu.Lock()
		c.n++
		c.text.WriteString(u.Content.Text.Text)
		c.mu.Unlock()
	}
}

func (c *chunks) check(t *testing.T, want int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for i := range want {
		fmt.Fprintf(&b, "%d ", i)
	}
	if c.n != want || c.text.String() != b.String() {
		t.Errorf("editor got %d chunks, want %d in order", c.n, want)
	}
}

// The turn is blocked in the editor's hands (sending an update, asking for
// permission) while the CLI writes far more than the event queue holds,
// and what unblocks the turn comes from the CLI behind all that output: the
// answer to a set_permission_mode the editor sent meanwhile, or the CLI's
// withdrawal of its permission question. The reader must read on past the
// queue's bound in those states; if it did not, everything would wait for
// everything else, which synctest reports as a deadlock.
func TestFullQueueWhileTurnWaits(t *testing.T) {
	t.Run("update waits for a mode change", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := &launcher{plays: []func(*cli) error{func(c *cli) error {
				if err := c.initialized(); err != nil {
					return err
				}
				in := readStdin(c)
				<-in.users
				for i := range flood {
					if err := c.write(delta(i)); err != nil {
						return err
					}
				}
				req := <-in.requests
				if err := c.write(answer(req, `{"mode":"plan"}`), turnResult); err != nil {
					return err
				}
				return in.wait()
			}}}
			var (
				got      chunks
				s        acp.Session
				asked    atomic.Bool
				setErr   error
				setModes = make(chan struct{})
			)
			client := &acptest.Client{Update: func(ctx context.Context, n acp.SessionNotification) error {
				got.add(n)
				if n.Update.AgentMessageChunk != nil && !asked.Swap(true) {
					// The editor changes the mode before it takes more updates.
					setErr = s.(*Session).SetMode(ctx, "plan")
					close(setModes)
				}
				return nil
			}}
			a := newTestAdapter(t, l, Options{})
			s, _ = a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
			defer s.Close()
			stop, err := s.Prompt(t.Context(), prompt("go"))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			<-setModes
			if setErr != nil || s.(*Session).State().Modes.CurrentModeID != "plan" {
				t.Errorf("SetMode = %v, mode %q; want plan", setErr, s.(*Session).State().Modes.CurrentModeID)
			}
			got.check(t, flood)
		})
	})

	t.Run("permission question withdrawn", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			in := make(chan *stdin, 1)
			l := &launcher{plays: []func(*cli) error{func(c *cli) error {
				if err := c.initialized(); err != nil {
					return err
				}
				s := readStdin(c)
				in <- s
				<-s.users
				lines := []string{`{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}`}
				for i := range flood {
					lines = append(lines, delta(i))
				}
				lines = append(lines, `{"type":"control_cancel_request","request_id":"perm-1"}`, turnResult)
				if err := c.write(lines...); err != nil {
					return err
				}
				return s.wait()
			}}}
			var (
				got       chunks
				withdrawn atomic.Bool
			)
			client := &acptest.Client{
				Update: func(_ context.Context, n acp.SessionNotification) error { got.add(n); return nil },
				Permission: func(ctx context.Context, _ acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
					<-ctx.Done() // the user never answers; the CLI withdraws the question
					withdrawn.Store(true)
					return acp.RequestPermissionResponse{}, ctx.Err()
				},
			}
			a := newTestAdapter(t, l, Options{})
			s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
			defer s.Close()
			stop, err := s.Prompt(t.Context(), prompt("go"))
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
			}
			if !withdrawn.Load() {
				t.Error("the permission request was not withdrawn")
			}
			got.check(t, flood)
			synctest.Wait()
			if cliIn := <-in; len(cliIn.answers) != 0 {
				t.Errorf("the CLI was answered %s after withdrawing its question", (<-cliIn.answers).Raw)
			}
		})
	})

	t.Run("mode change between turns", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := &launcher{plays: []func(*cli) error{func(c *cli) error {
				in, err := turnThenFlood(c)
				if err != nil {
					return err
				}
				// The answer to a request sent meanwhile.
				req := <-in.requests
				if err := c.write(answer(req, `{"mode":"plan"}`)); err != nil {
					return err
				}
				<-in.users
				if err := c.write(delta(0), turnResult); err != nil {
					return err
				}
				return in.wait()
			}}}
			var got chunks
			client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error { got.add(n); return nil }}
			a := newTestAdapter(t, l, Options{})
			s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
			defer s.Close()
			sess := s.(*Session)
			if stop, err := s.Prompt(t.Context(), prompt("one")); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("first Prompt = %q, %v", stop, err)
			}
			synctest.Wait() // the reader is blocked on the full queue
			if err := sess.SetMode(t.Context(), "plan"); err != nil {
				t.Fatalf("SetMode between turns: %v", err)
			}
			if stop, err := s.Prompt(t.Context(), prompt("two")); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("second Prompt = %q, %v", stop, err)
			}
			got.check(t, 1)
		})
	})
}

// A turn that falls behind makes the CLI wait: with the editor not taking
// updates, the reader stops once the queue is full, and the CLI blocks
// writing its stdout instead of the bridge buffering the whole stream.
func TestQueueBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var written atomic.Int64
		l := &launcher{plays: []func(*cli) error{func(c *cli) error {
			if err := c.initialized(); err != nil {
				return err
			}
			in := readStdin(c)
			<-in.users
			for i := range flood {
				if err := c.write(delta(i)); err != nil {
					return err
				}
				written.Add(1)
			}
			if err := c.write(turnResult); err != nil {
				return err
			}
			return in.wait()
		}}}
		var (
			got     chunks
			stalled = make(chan struct{})
			resume  = make(chan struct{})
			once    sync.Once
		)
		client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
			if n.Update.AgentMessageChunk != nil {
				once.Do(func() {
					close(stalled)
					<-resume // the editor is slow to take the first chunk
				})
			}
			got.add(n)
			return nil
		}}
		a := newTestAdapter(t, l, Options{})
		s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, client)
		defer s.Close()
		type result struct {
			stop acp.StopReason
			err  error
		}
		done := make(chan result, 1)
		go func() {
			stop, err := s.Prompt(t.Context(), prompt("go"))
			done <- result{stop, err}
		}()
		<-stalled
		synctest.Wait()
		// One event is with the editor, a queue's worth waits, and the
		// reader holds the line it could not queue.
		if n := written.Load(); n < queueEvents || n > queueEvents+2 {
			t.Errorf("the CLI wrote %d lines while the turn was stalled, want about %d", n, queueEvents)
		}
		close(resume)
		if r := <-done; r.err != nil || r.stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v; want end_turn", r.stop, r.err)
		}
		got.check(t, flood)
	})
}

// turnThenFlood plays a CLI that answers the first prompt and then writes
// more output than the queue holds, which nobody reads until the next
// prompt. It returns the CLI's stdin for what the caller plays next.
func turnThenFlood(c *cli) (*stdin, error) {
	if err := c.initialized(); err != nil {
		return nil, err
	}
	in := readStdin(c)
	<-in.users
	if err := c.write(turnResult); err != nil {
		return nil, err
	}
	for range flood {
		if err := c.write(idleStatus); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Closing a session whose reader waits on a full queue must not hang: the
// queue is released, and Close waits for the reader to reach EOF.
func TestCloseWithFullQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &launcher{plays: []func(*cli) error{func(c *cli) error {
			in, err := turnThenFlood(c)
			if err != nil {
				return err
			}
			return in.wait()
		}}}
		a := newTestAdapter(t, l, Options{})
		s, _ := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, &acptest.Client{})
		if stop, err := s.Prompt(t.Context(), prompt("go")); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt = %q, %v", stop, err)
		}
		synctest.Wait() // the reader is blocked on the full queue
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRing(t *testing.T) {
	var r ring
	next, want := 0, 0
	push := func(n int) {
		for range n {
			r.push(event{typ: fmt.Sprint(next)})
			next++
		}
	}
	pop := func(n int) {
		t.Helper()
		for range n {
			ev, ok := r.pop()
			if !ok || ev.typ != fmt.Sprint(want) {
				t.Fatalf("pop = %q, %v; want %d", ev.typ, ok, want)
			}
			want++
		}
	}
	push(10)
	pop(7)
	push(20) // wraps around, then grows
	pop(23)
	push(3 * queueEvents) // past the bound
	pop(3 * queueEvents)
	if r.buf != nil {
		t.Errorf("a ring grown past the queue's bound kept %d slots once empty", len(r.buf))
	}
	if _, ok := r.pop(); ok {
		t.Error("pop on an empty ring succeeded")
	}
}

// oneByte returns its input a byte per Read, the worst case for line
// splitting.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*slabSize+17)
	input := "a\n\nbc\n" + long + "\n" + "{\"t\":1}\n" + "tail"
	want := []string{"a\n", "\n", "bc\n", long + "\n", "{\"t\":1}\n", "tail"}
	for _, tt := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", strings.NewReader(input)},
		{"a byte per read", oneByte{strings.NewReader(input)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lr := lineReader{r: tt.r, pool: &slabs{}}
			var got [][]byte
			for {
				line, _, err := lr.next()
				if len(line) > 0 {
					got = append(got, line)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("got %d lines, want %d", len(got), len(want))
			}
			// Lines not recycled stay valid after later reads.
			for i := range want {
				if string(got[i]) != want[i] {
					t.Errorf("line %d = %.40q, want %.40q", i, got[i], want[i])
				}
				if cap(got[i]) != len(got[i]) {
					t.Errorf("line %d has spare capacity: appending to it could clobber the next", i)
				}
			}
		})
	}
	lr := lineReader{r: strings.NewReader(strings.Repeat("y", 2*slabSize)), pool: &slabs{}, limit: slabSize}
	if _, _, err := lr.next(); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("over-long line: error %v", err)
	}
}

// A slab is reused only once the reader has moved past it and every line
// in it has been recycled; until then its lines keep their bytes.
func TestSlabRecycling(t *testing.T) {
	line := strings.Repeat("z", 1000) + "\n"
	pool := &slabs{}
	lr := lineReader{r: strings.NewReader(strings.Repeat(line, 1000)), pool: pool}
	type held struct {
		b  []byte
		sl *slab
	}
	var kept []held
	seen := map[*slab]bool{}
	for i := 0; ; i++ {
		b, sl, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[sl] = true
		if i%100 == 0 {
			kept = append(kept, held{b, sl}) // still in use
		} else {
			pool.unref(sl)
		}
	}
	for _, h := range kept {
		if string(h.b) != line {
			t.Fatalf("a line still in use was overwritten: %.20q", h.b)
		}
	}
	// 1000 lines of 1001 bytes fill 16 slabs; the ones without a kept
	// line were reused.
	if len(seen) >= 16 {
		t.Errorf("read 1 MB through %d distinct slabs: none was reused", len(seen))
	}
	for _, h := range kept {
		pool.unref(h.sl)
	}
}

// timedSource is a pipe whose lines arrive at given offsets from its
// creation: a Read blocks until the next line is due, then returns as much
// of the lines due by then as fits. It counts its reads.
type timedSource struct {
	start time.Time
	lines []string
	at    []time.Duration
	reads int
}

func (s *timedSource) Read(p []byte) (int, error) {
	if len(s.lines) == 0 {
		return 0, io.EOF
	}
	s.reads++
	if d := time.Until(s.start.Add(s.at[0])); d > 0 {
		time.Sleep(d)
	}
	return s.take(p), nil
}

// quietSource is a timedSource that is also a proc.NowReader, as the pipe
// of a real CLI is. It counts its ReadNow calls apart, and the wakes: lines
// written between two reads while the source was watched (not quiet).
// Each of those wakes a real bridge for nothing, as the reader is not
// waiting for it.
type quietSource struct {
	*timedSource
	nows  int
	quiet bool      // ReadNow was called, and Read not since
	since time.Time // when the last read returned
	wakes int

	batches   int // ReadNow calls that returned data
	readLines int // lines that Read returned
}

func (s *quietSource) Read(p []byte) (int, error) {
	s.count()
	s.quiet = false
	n, err := s.timedSource.Read(p)
	s.since = time.Now()
	s.readLines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

func (s *quietSource) ReadNow(p []byte) (int, error) {
	s.count()
	s.quiet = true
	if len(p) == 0 {
		return 0, nil
	}
	s.nows++
	if len(s.lines) == 0 {
		return 0, io.EOF
	}
	n := s.take(p)
	s.since = time.Now()
	if n > 0 {
		s.batches++
	}
	return n, nil
}

// count adds the writes since the last read to wakes, unless the source
// was quiet meanwhile. Writes a Read waits for are not counted: they come
// after the call.
func (s *quietSource) count() {
	if s.quiet || s.since.IsZero() {
		return
	}
	now := time.Now()
	for _, at := range s.at {
		t := s.start.Add(at)
		if t.After(now) {
			break
		}
		if t.After(s.since) {
			s.wakes++
		}
	}
}

// take copies the lines due by now into p, as many as fit.
func (s *timedSource) take(p []byte) int {
	n := 0
	for len(s.lines) > 0 && !s.start.Add(s.at[0]).After(time.Now()) && n < len(p) {
		c := copy(p[n:], s.lines[0])
		n += c
		if s.lines[0] = s.lines[0][c:]; s.lines[0] == "" {
			s.lines, s.at = s.lines[1:], s.at[1:]
		}
	}
	return n
}

// burstsAndPauses is a timedSource without lines yet, due as a burst of
// 1,000 lines 10 µs apart, a pause, one line at 50 ms, another pause, and
// a burst of 100 lines 1 µs apart from 80 ms on.
func burstsAndPauses() *timedSource {
	src := &timedSource{start: time.Now()}
	for i := range 1000 {
		src.at = append(src.at, time.Duration(i)*10*time.Microsecond)
	}
	src.at = append(src.at, 50*time.Millisecond)
	for i := range 100 {
		src.at = append(src.at, 80*time.Millisecond+time.Duration(i)*time.Microsecond)
	}
	return src
}

// With a read window, a stream of lines is read in batches, and no line
// waits longer than the window: one after a pause is read at once.
func TestLineReaderWindow(t *testing.T) {
	const window = time.Millisecond
	synctest.Test(t, func(t *testing.T) {
		src := burstsAndPauses()
		for i := range src.at {
			src.lines = append(src.lines, fmt.Sprintf("{\"n\":%d}\n", i))
		}
		due := slices.Clone(src.at)
		lr := lineReader{r: src, pool: &slabs{}, window: window}
		for i := 0; ; i++ {
			line, sl, err := lr.next()
			if err == io.EOF {
				if i != len(due) {
					t.Fatalf("read %d lines, want %d", i, len(due))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("{\"n\":%d}\n", i); string(line) != want {
				t.Fatalf("line %d = %q, want %q", i, line, want)
			}
			lr.pool.unref(sl)
			if late := time.Since(src.start) - due[i]; late > window {
				t.Errorf("line %d read %v after it was written; the window is %v", i, late, window)
			}
			if i == 1000 && time.Since(src.start) != due[i] {
				t.Errorf("the line after a pause waited %v", time.Since(src.start)-due[i])
			}
		}
		// Two reads to see the first burst is dense, 10 ms of it in 1 ms
		// windows, the line after the pause, and three reads for the last
		// burst (one, one more that finds it dense, the rest).
		if src.reads > 2+10+1+3 {
			t.Errorf("%d reads for 1,101 lines: the window did not batch them", src.reads)
		}
	})
	// Lines that come slower than 8 a window are read one by one, as they
	// come: waiting would batch nothing and cost a timer each. Here they
	// follow a dense burst: the reader stops batching at the first batch
	// of one line.
	synctest.Test(t, func(t *testing.T) {
		const burst, sparse = 50, 100
		src := &timedSource{start: time.Now()}
		for i := range burst + sparse {
			at := time.Duration(i) * 10 * time.Microsecond
			if i >= burst {
				at = time.Duration(i-burst+1) * 800 * time.Microsecond
			}
			src.at = append(src.at, at)
			src.lines = append(src.lines, "{}\n")
		}
		due := slices.Clone(src.at)
		lr := lineReader{r: src, pool: &slabs{}, window: window}
		for i := 0; ; i++ {
			_, sl, err := lr.next()
			if err != nil {
				break
			}
			lr.pool.unref(sl)
			if late := time.Since(src.start) - due[i]; late > window || i > burst+1 && late != 0 {
				t.Fatalf("line %d waited %v", i, late)
			}
		}
		if src.reads > sparse+burst/10 {
			t.Errorf("%d reads for %d lines", src.reads, burst+sparse)
		}
	})
	// Output that is there already is read without waiting, slab after
	// slab: the window is for a reader that has caught up with the writer.
	synctest.Test(t, func(t *testing.T) {
		src := &timedSource{start: time.Now()}
		line := strings.Repeat("w", 999) + "\n"
		for range 1000 {
			src.at = append(src.at, 0)
			src.lines = append(src.lines, line)
		}
		lr := lineReader{r: src, pool: &slabs{}, window: window}
		n, took := 0, time.Duration(0)
		for {
			_, sl, err := lr.next()
			if err != nil {
				break
			}
			n++
			took = time.Since(src.start)
			lr.pool.unref(sl)
		}
		if n != 1000 || took != 0 {
			t.Errorf("read %d lines of a backlog in %v (%d reads); want 1000 at once", n, took, src.reads)
		}
	})
	// Without a window every line that is due is read as soon as it is:
	// here one read per line of the first burst.
	synctest.Test(t, func(t *testing.T) {
		src := &timedSource{start: time.Now()}
		for i := range 100 {
			src.at = append(src.at, time.Duration(i)*10*time.Microsecond)
			src.lines = append(src.lines, "{}\n")
		}
		lr := lineReader{r: src, pool: &slabs{}}
		for {
			_, sl, err := lr.next()
			if err != nil {
				break
			}
			lr.pool.unref(sl)
			if lr.batch != 0 {
				t.Fatalf("batch %d without a window", lr.batch)
			}
		}
		if src.reads != 100 {
			t.Errorf("%d reads for 100 lines 10 µs apart without a window, want 100", src.reads)
		}
	})
}

// A source that can be read quietly is, while the reader batches: the
// writes within a window wake nothing. The timing is as without it.
func TestLineReaderWindowQuiet(t *testing.T) {
	const window = time.Millisecond
	for _, quiet := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ts := burstsAndPauses()
			for range ts.at {
				ts.lines = append(ts.lines, "{}\n")
			}
			due := slices.Clone(ts.at)
			src := &quietSource{timedSource: ts}
			var r io.Reader = src
			if !quiet {
				r = struct{ io.Reader }{src} // hides ReadNow
			}
			lr := lineReader{r: r, pool: &slabs{}, window: window}
			var tags []uint64
			for i := 0; ; i++ {
				_, sl, err := lr.next()
				if err != nil {
					if i != len(due) {
						t.Fatalf("read %d lines (%v), want %d", i, err, len(due))
					}
					break
				}
				lr.pool.unref(sl)
				if late := time.Since(ts.start) - due[i]; late > window || i == 1000 && late != 0 {
					t.Fatalf("quiet %v: line %d read %v after it was written", quiet, i, late)
				}
				tags = append(tags, lr.batch)
			}
			// Batch tags: the lines of a window share one; a line read
			// as it came (after a pause) has none.
			batched, last := 0, uint64(0)
			for i, tag := range tags {
				if tag != 0 && tag < last {
					t.Fatalf("line %d has batch %d after batch %d", i, tag, last)
				}
				if tag != 0 {
					batched++
					last = tag
				}
			}
			if !quiet {
				// Only a ReadNow is known to take what was written
				// before it: a plain Read may have waited.
				if batched != 0 {
					t.Errorf("%d lines of a source without ReadNow in batches", batched)
				}
				// What the quiet source saves: nearly every line of
				// the bursts came while the reader slept, watched.
				if src.nows != 0 || src.wakes < 1000 {
					t.Errorf("without ReadNow: %d ReadNow calls, %d wakes; want 0 and most of 1,101", src.nows, src.wakes)
				}
				return
			}
			if tags[1000] != 0 || tags[0] != 0 || batched < 1000 || last > 20 {
				t.Errorf("%d of 1,101 lines in %d batches, the first in %d, the one after the pause in %d; want most in ~12 and those two in none",
					batched, last, tags[0], tags[1000])
			}
			// Reads: two to find the first burst dense, one that waits
			// out the pause for the line, two for the second burst (5).
			// ReadNow: one a window of the bursts, and one each to find
			// them over (13). Waiting for the pauses with ReadNow would
			// take ~70 more.
			if src.reads > 6 || src.nows > 14 || src.nows == 0 {
				t.Errorf("%d reads and %d ReadNow calls for 1,101 lines", src.reads, src.nows)
			}
			if src.wakes > 0 {
				t.Errorf("%d wakes: the reader slept through its windows on a watched source", src.wakes)
			}
		})
	}
}
