package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// seqParams is the params of the notifications these tests send: who sent
// it and its sequence number for that sender, padded to a fixed size.
type seqParams struct {
	W   string `json:"w"`
	Seq int    `json:"seq"`
	Pad string `json:"pad,omitempty"`
}

func decodeSeq(t *testing.T, msg []byte) (m Message, p seqParams) {
	t.Helper()
	m, err := DecodeMessage(msg)
	if err != nil {
		t.Fatalf("decoding %s: %v", msg, err)
	}
	if r, ok := m.(*Request); ok {
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatalf("params of %s: %v", msg, err)
		}
	}
	return m, p
}

// queued returns how many messages and bytes wait in the Conn's queue.
func queued(c *Conn) (msgs, size int) {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	return len(c.out.lens), len(c.out.buf)
}

// TestConnBackpressure checks that a peer that does not read makes senders
// wait once the queue is full (by bytes for large messages, by count for
// small ones), rather than buffering without bound; that a waiting sender
// whose ctx ends gives up without queueing; and that everything queued
// arrives, in order, once the peer reads.
func TestConnBackpressure(t *testing.T) {
	for _, tt := range []struct {
		name string
		pad  int
	}{{"large messages", 200}, {"small messages", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testBackpressure(t, strings.Repeat("x", tt.pad)) })
		})
	}
}

func testBackpressure(t *testing.T, pad string) {
	h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(nil)}, StdioOptions{})
	size := len(mustNotification(t, "u", seqParams{W: "p", Seq: 1000, Pad: pad}))
	total := 4 * max(maxQueuedBytes/size, maxQueuedMessages) // far more than the queue holds
	var sentMsgs, sentBytes atomic.Int64
	producerDone := make(chan struct{})
	go func() {
		defer close(producerDone)
		for i := range total {
			p := seqParams{W: "p", Seq: i, Pad: pad}
			if err := h.conn.Notify(context.Background(), "u", p); err != nil {
				t.Errorf("Notify %d: %v", i, err)
				return
			}
			msg, _ := appendNotification(nil, opening, "u", p)
			sentMsgs.Add(1)
			sentBytes.Add(int64(len(msg)))
		}
	}()
	synctest.Wait()
	select {
	case <-producerDone:
		t.Fatalf("all %d messages were accepted while the peer read nothing", total)
	default:
	}
	msgs, bytes := queued(h.conn)
	if msgs > maxQueuedMessages || bytes > maxQueuedBytes {
		t.Errorf("queue holds %d messages, %d bytes; bounds are %d and %d", msgs, bytes, maxQueuedMessages, maxQueuedBytes)
	}
	if msgs < maxQueuedMessages && bytes+size <= maxQueuedBytes {
		t.Errorf("the sender waits, but the queue (%d messages, %d bytes) has room", msgs, bytes)
	}
	// What was accepted is at most a full queue plus the batch the writer is
	// stuck writing (itself at most a full queue).
	if n, b := sentMsgs.Load(), sentBytes.Load(); n > 2*maxQueuedMessages || b > 2*maxQueuedBytes {
		t.Errorf("%d messages, %d bytes accepted: more than two queues' worth", n, b)
	}

	// A sender waiting for room gives up when its ctx ends. Its message is
	// larger than the producer's, which did not fit either.
	ctx, cancel := context.WithCancelCause(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- h.conn.Notify(ctx, "u", seqParams{W: "cancelled", Seq: 1 << 30, Pad: pad}) }()
	synctest.Wait()
	stop := errors.New("stop waiting")
	cancel(stop)
	if err := <-gaveUp; !errors.Is(err, stop) {
		t.Errorf("Notify with a cancelled ctx = %v, want %v", err, stop)
	}

	for i := range total {
		_, p := decodeSeq(t, h.recv())
		if p.W != "p" || p.Seq != i {
			t.Fatalf("message %d is %+v, want seq %d of p", i, p, i)
		}
	}
	<-producerDone
	h.ping(1) // nothing else was queued: the next message is the answer
}

func mustNotification(t *testing.T, method string, params any) []byte {
	t.Helper()
	b, err := appendNotification(nil, opening, method, params)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConnWriteOrder has several goroutines send notifications while a
// handler streams notifications and then answers, all through a full queue
// (the peer starts reading only once every sender waits): each sender's
// messages arrive in the order sent, and the answer after every
// notification its handler sent.
func TestConnWriteOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			writers = 4
			each    = 1000
			streamN = 500
		)
		var conn *Conn
		h := newHarness(t, framingNDJSON, Options{Handler: handlerMap(map[string]Handler{
			"prompt": func(ctx context.Context, req *Request) (any, error) {
				for i := range streamN {
					if err := conn.Notify(ctx, "update", seqParams{W: "handler", Seq: i}); err != nil {
						return nil, err
					}
				}
				return "end_turn", nil
			},
		})}, StdioOptions{})
		conn = h.conn
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					if err := conn.Notify(context.Background(), "update", seqParams{W: fmt.Sprint(w), Seq: i}); err != nil {
						t.Errorf("Notify: %v", err)
						return
					}
				}
			})
		}
		h.send(`{"jsonrpc":"2.0","id":1,"method":"prompt"}`)
		synctest.Wait()
		next := map[string]int{}
		answered := false
		for range writers*each + streamN + 1 {
			m, p := decodeSeq(t, h.recv())
			if r, ok := m.(*Response); ok {
				if next["handler"] != streamN {
					t.Fatalf("answer %s after %d of its handler's %d notifications", r.Result, next["handler"], streamN)
				}
				answered = true
				continue
			}
			if p.Seq != next[p.W] {
				t.Fatalf("sender %s: got seq %d, want %d", p.W, p.Seq, next[p.W])
			}
			next[p.W]++
		}
		if !answered {
			t.Error("no answer")
		}
		for w := range writers {
			if n := next[fmt.Sprint(w)]; n != each {
				t.Errorf("sender %d: %d messages, want %d", w, n, each)
			}
		}
		wg.Wait()
	})
}

// TestConnLoneMessageImmediate checks that a single message is written at
// once: with a fake clock, no time passes before the peer has it.
func TestConnLoneMessageImmediate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		start := time.Now()
		if err := h.conn.Notify(t.Context(), "update", seqParams{W: "a"}); err != nil {
			t.Fatal(err)
		}
		h.expect(`{"jsonrpc":"2.0","method":"update","params":{"w":"a","seq":0}}`)
		if d := time.Since(start); d != 0 {
			t.Errorf("the message took %v to be written", d)
		}
	})
}

// TestConnCloseFlushes checks that Close writes what was queued before it,
// refuses what is sent after, and closes the stream once done.
func TestConnCloseFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		const n = 100
		for i := range n {
			if err := h.conn.Notify(t.Context(), "update", seqParams{W: "a", Seq: i}); err != nil {
				t.Fatal(err)
			}
		}
		closed := make(chan error, 1)
		go func() { closed <- h.conn.Close() }()
		synctest.Wait()
		if err := h.conn.Notify(t.Context(), "update", seqParams{W: "late"}); !errors.Is(err, errClosed) {
			t.Errorf("Notify during Close = %v, want errClosed", err)
		}
		for i := range n {
			if _, p := decodeSeq(t, h.recv()); p.Seq != i {
				t.Fatalf("message %d has seq %d", i, p.Seq)
			}
		}
		if _, err := h.peer.Read(t.Context()); err != io.EOF {
			t.Errorf("after the queued messages: %v, want EOF", err)
		}
		if err := <-closed; err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}

// TestConnCloseUnreadPeer checks that Close gives up flushing after
// closeFlushTimeout when the peer does not read, and still waits for its
// writer goroutine, which closing the stream ends.
func TestConnCloseUnreadPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, framingNDJSON, Options{}, StdioOptions{})
		if err := h.conn.Notify(t.Context(), "update", seqParams{W: "a"}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := h.conn.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
		if d := time.Since(start); d != closeFlushTimeout {
			t.Errorf("Close took %v, want %v", d, closeFlushTimeout)
		}
		select {
		case <-h.conn.out.done:
		default:
			t.Error("Close returned before the writer goroutine")
		}
	})
}

// TestConnNotifyWriteFailure checks that a write failing after its Notify
// returned breaks the Conn (reported once, ctx cancelled with the failure)
// and that later sends get the failure.
func TestConnNotifyWriteFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epipe := errors.New("broken pipe")
		s := newChanStream(func(msg []byte) error {
			if strings.Contains(string(msg), `"fail"`) {
				return epipe
			}
			return nil
		})
		var reports atomic.Int32
		c := NewConn(t.Context(), s, Options{OnInternalError: func(error) { reports.Add(1) }})
		defer c.Close()
		if err := c.Notify(t.Context(), "ok", nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(t.Context(), "fail", nil); err != nil {
			t.Fatalf("Notify = %v; it returns once queued", err)
		}
		<-c.Done()
		if !errors.Is(c.Err(), epipe) {
			t.Errorf("Err = %v, want %v", c.Err(), epipe)
		}
		if err := c.Notify(t.Context(), "ok", nil); !errors.Is(err, epipe) {
			t.Errorf("Notify after the failure = %v, want %v", err, epipe)
		}
		if reports.Load() != 1 {
			t.Errorf("%d reports, want 1", reports.Load())
		}
	})
}
