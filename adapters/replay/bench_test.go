package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/gen"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// BenchmarkTextTurn plays a generated Claude Code turn of 20,000 text deltas
// through the Claude adapter and the whole bridge, in this process, with the
// editor's side read and dropped: the bridge's own cost per streamed delta
// (ns/delta, allocs/op), which is what a real turn adds on top of the CLI.
// The in-process fake agent that plays the script is part of the cost.
func BenchmarkTextTurn(b *testing.B) {
	const deltas = 20_000
	fx := gen.TextTurn(deltas)
	for b.Loop() {
		chunks, err := playTurn(b.Context(), fx, func(ad *replay.Adapter) *bridge.Server {
			return bridge.New(ad, bridge.Options{})
		})
		if err != nil {
			b.Fatal(err)
		}
		if chunks != deltas {
			b.Fatalf("%d chunks, want %d", chunks, deltas)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
}

// playTurn serves fx on a pipe, sends initialize, session/new and one
// prompt, and reads the editor's side until the prompt's answer, counting
// agent_message_chunk updates.
func playTurn(ctx context.Context, fx *recording.Fixture, server func(*replay.Adapter) *bridge.Server) (int, error) {
	ad, err := replay.New(fx, replay.ClaudeOptions(nil, "", 0))
	if err != nil {
		return 0, err
	}
	defer ad.Close()
	srv := server(ad)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	defer func() {
		inW.Close()
		<-served
	}()
	// The pipe has no buffer: one goroutine writes, in order.
	requests := make(chan string, 3)
	defer close(requests)
	go func() {
		for r := range requests {
			io.WriteString(inW, r)
		}
	}()
	send := func(format string, args ...any) {
		requests <- fmt.Sprintf(format+"\n", args...)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, gen.Cwd)
	r := bufio.NewReaderSize(outR, 64<<10)
	chunks := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return chunks, fmt.Errorf("after %d chunks: %w", chunks, err)
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":2,`)) {
			id := gjson.GetBytes(line, "result.sessionId").String()
			if id == "" {
				return 0, fmt.Errorf("session/new answered %s", line)
			}
			send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}}`,
				id, gen.Prompt)
		}
		if bytes.Contains(line, []byte(`"agent_message_chunk"`)) {
			chunks++
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":3,`)) {
			if !bytes.Contains(line, []byte(`"stopReason":"end_turn"`)) {
				return chunks, fmt.Errorf("prompt answered %s", line)
			}
			return chunks, nil
		}
	}
}
