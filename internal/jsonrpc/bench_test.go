package jsonrpc

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"testing"
)

// countingWriter counts the writes that reach the file: each is a system
// call.
type countingWriter struct {
	w     io.Writer
	calls atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls.Add(1)
	return c.w.Write(p)
}

// fixedParams encodes itself as a fixed JSON object, the way
// acp.SessionNotification does (without reflection), so that the benchmark
// measures the connection rather than encoding/json. Like any jsonAppender,
// AppendJSON writes what json.Marshal writes.
type fixedParams []byte

func (p fixedParams) AppendJSON(dst []byte) ([]byte, error) { return append(dst, p...), nil }
func (p fixedParams) MarshalJSON() ([]byte, error)          { return p, nil }

// chunkParams is a session/update with one agent_message_chunk of text.
var chunkParams = fixedParams(`{"sessionId":"sess_0123456789","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello, this is a streamed chunk of an agent message."}}}`)

// BenchmarkWriteNotifications writes session/update-sized notifications
// into a real pipe drained by another goroutine:
//
//   - direct: one stdio.Write per message from one goroutine, what a turn
//     paid before writes were pipelined (one write(2) per update, on the
//     turn's goroutine);
//   - serial: Conn.Notify from one goroutine (a turn streaming tokens);
//   - parallel: Conn.Notify from several goroutines at once (tool calls
//     reporting progress beside the stream).
//
// writes/msg is the number of system calls per message; ns/op is what the
// sender pays per message.
func BenchmarkWriteNotifications(b *testing.B) {
	msg, err := appendNotification(nil, opening, "session/update", chunkParams)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, parallelism int, send func(cw *countingWriter) (func() error, func())) {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			_, _ = io.Copy(io.Discard, r)
		}()
		cw := &countingWriter{w: w}
		one, done := send(cw)
		b.SetBytes(int64(len(msg) + 1))
		b.ResetTimer()
		if parallelism == 0 {
			for range b.N {
				if err := one(); err != nil {
					b.Fatal(err)
				}
			}
		} else {
			b.SetParallelism(parallelism)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := one(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		done() // the queue is flushed before the timer stops
		b.StopTimer()
		b.ReportMetric(float64(cw.calls.Load())/float64(b.N), "writes/msg")
		_ = w.Close()
		<-drained
		_ = r.Close()
	}
	direct := func(cw *countingWriter) (func() error, func()) {
		s := newStdio(eofReader{}, cw, StdioOptions{}, framingNDJSON)
		return func() error { return s.Write(context.Background(), msg) }, func() {}
	}
	viaConn := func(cw *countingWriter) (func() error, func()) {
		s := newStdio(eofReader{}, cw, StdioOptions{}, framingNDJSON)
		c := NewConn(context.Background(), s, Options{})
		return func() error { return c.Notify(context.Background(), "session/update", chunkParams) },
			func() { _ = c.Close() }
	}
	for _, mode := range []struct {
		name        string
		parallelism int // goroutines per GOMAXPROCS; 0 is one goroutine
		send        func(*countingWriter) (func() error, func())
	}{
		{"direct", 0, direct},
		{"serial", 0, viaConn},
		{"parallel", 4, viaConn},
	} {
		b.Run(mode.name, func(b *testing.B) { run(b, mode.parallelism, mode.send) })
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
