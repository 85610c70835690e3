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

// BenchmarkWriteNotifications writes session/update-sized notifications
// from many goroutines at once (a turn streaming tokens while tool calls
// report progress) into a real pipe, flushing after every message versus
// only when no other write waits. writes/msg is the number of system calls
// per message.
func BenchmarkWriteNotifications(b *testing.B) {
	msg, err := EncodeMessage(&Request{Method: "session/update", Params: []byte(
		`{"sessionId":"sess_0123456789","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello, this is a streamed chunk of an agent message."}}}`)})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name   string
		direct bool
	}{{"flush-each", true}, {"coalesced", false}} {
		b.Run(mode.name, func(b *testing.B) {
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
			s := newStdio(eofReader{}, cw, StdioOptions{}, framingNDJSON)
			s.direct = mode.direct
			b.SetParallelism(4)
			b.SetBytes(int64(len(msg) + 1))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := s.Write(context.Background(), msg); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(cw.calls.Load())/float64(b.N), "writes/msg")
			_ = w.Close()
			<-drained
			_ = r.Close()
		})
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
