package streamplayer

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// benchScript is one prompt followed by n streamed lines of typical size,
// all carrying the recorded session id.
func benchScript(n int) []recording.Step {
	steps := []recording.Step{{Dir: recording.ToAgent, Line: []byte(userMsg)}}
	for i := range n {
		line := fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word %d "}},"session_id":"0b0e1c2d-0000-4000-8000-00000000a11e","parent_tool_use_id":null,"uuid":"5f0c3e4a-0000-4000-8000-%012d"}`, i, i)
		steps = append(steps, recording.Step{Dir: recording.FromAgent, Line: []byte(line)})
	}
	return steps
}

// BenchmarkRun streams a 100,000-line script; lines/s is the figure of merit
// (the requirement is well over 200k).
func BenchmarkRun(b *testing.B) {
	const n = 100_000
	steps := benchScript(n)
	opts := Options{RecordedSessionID: "0b0e1c2d-0000-4000-8000-00000000a11e", SessionID: "11111111-2222-4333-8444-555555555555"}
	b.ReportAllocs()
	for b.Loop() {
		if err := Run(b.Context(), steps, strings.NewReader(userMsg+"\n"), io.Discard, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "lines/s")
}
