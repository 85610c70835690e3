package codex

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// BenchmarkTurnDeltas measures the adapter's own cost per streamed text
// delta: a stand-in app-server writes a turn of deltas in one go, as a
// fast model makes Codex do, and the turn turns them into chunks.
func BenchmarkTurnDeltas(b *testing.B) {
	const deltas = 20000
	var turn strings.Builder
	for i := range deltas {
		fmt.Fprintf(&turn, `{"method":"item/agentMessage/delta","params":{"threadId":"thread-1","turnId":"turn-1","itemId":"msg_%d","delta":"w "},"emittedAtMs":1795853504594}`+"\n", i/deltas)
	}
	turn.WriteString(turnCompleted + "\n")
	server := stubAppServer(func(_ context.Context, m stubMsg, stdout io.Writer) error {
		if m.Method == mTurnStart {
			io.WriteString(stdout, turn.String())
		}
		return nil
	})
	a := New(Options{ReadWindow: DefaultReadWindow, Launch: func(context.Context, proc.Spec) (proc.Process, error) { return proc.InProcess("codex", server), nil }})
	defer a.Close()
	var text, chunks atomic.Int64
	cl := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if c := n.Update.AgentMessageChunk; c != nil {
			text.Add(int64(len(c.Content.Text.Text)))
			chunks.Add(1)
		}
		return nil
	}}
	s, err := a.NewSession(b.Context(), acp.NewSessionRequest{Cwd: "/project"}, cl)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for b.Loop() {
		text.Store(0)
		if _, err := s.Prompt(b.Context(), acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock("hi")}}); err != nil {
			b.Fatal(err)
		}
		if text.Load() != 2*deltas {
			b.Fatalf("%d bytes of text, want %d", text.Load(), 2*deltas)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
	b.ReportMetric(float64(chunks.Load())/float64(b.N), "chunks/turn")
}
