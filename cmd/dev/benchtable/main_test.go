package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/acpbridge/acpbridge/cmd/acpbridge
cpu: Some CPU
BenchmarkInitialize-8         	     300	   4123456 ns/op	         3.210 ms/init	         8.500 MB-peak-RSS
BenchmarkReplayThroughput-8   	       2	 812345678 ns/op	    350123 updates/s	        19.90 MB-peak-RSS	        22.50 MB-fixture
PASS
ok  	github.com/acpbridge/acpbridge/cmd/acpbridge	5.123s
`

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		code     int
		rows     []string // substrings of table rows, in order
		stderr   []string
		noStdout bool
	}{
		{
			name: "all pass",
			in:   sample,
			code: 0,
			rows: []string{
				"Initialize 300 ms/init 3.21 < 10 pass",
				"Initialize 300 MB-peak-RSS 8.5 < 20 pass",
				"Initialize 300 ns/op 4,123,456",
				"ReplayThroughput 2 updates/s 350,123 >= 200,000 pass",
				"ReplayThroughput 2 MB-peak-RSS 19.9 < 20 pass",
				"ReplayThroughput 2 ns/op 812,345,678",
				"ReplayThroughput 2 MB-fixture 22.5",
			},
			stderr: []string{"goos: linux", "PASS", "ok  \tgithub.com"},
		},
		{
			name: "missed targets",
			in: "BenchmarkInitialize-4 10 1 ns/op 12.5 ms/init\n" +
				"BenchmarkReplayThroughput 1 1 ns/op 199999 updates/s 20 MB-peak-RSS\n",
			code: 1,
			rows: []string{
				"Initialize 10 ms/init 12.5 < 10 FAIL",
				"ReplayThroughput 1 updates/s 199,999 >= 200,000 FAIL",
				"ReplayThroughput 1 MB-peak-RSS 20 < 20 FAIL",
			},
			stderr: []string{"3 target(s) missed"},
		},
		{
			name:   "failure reported by go test",
			in:     "BenchmarkInitialize-8 1 1 ns/op 1 ms/init\n--- FAIL: BenchmarkReplayThroughput-8\nFAIL\n",
			code:   1,
			rows:   []string{"Initialize 1 ms/init 1 < 10 pass"},
			stderr: []string{"--- FAIL: BenchmarkReplayThroughput-8", "reported a failure"},
		},
		{
			name: "claude side by side: bounds are inclusive",
			in: "BenchmarkClaude-2 12 9e9 ns/op 400 cold-ms-acpbridge 20 cold-ms-over-cli 0.02 init-ratio-vs-peer " +
				"0.05 new-ratio-vs-peer 150 rss-MB-peer 0.2 rss-ratio-vs-peer 1.05 turn-ratio-vs-cli\n",
			code: 0,
			rows: []string{
				"Claude 12 cold-ms-over-cli 20 <= 20 pass",
				"Claude 12 init-ratio-vs-peer 0.02 <= 0.02 pass",
				"Claude 12 new-ratio-vs-peer 0.05 <= 0.05 pass",
				"Claude 12 rss-ratio-vs-peer 0.2 <= 0.2 pass",
				"Claude 12 turn-ratio-vs-cli 1.05 <= 1.05 pass",
				"Claude 12 cold-ms-acpbridge 400",
				"Claude 12 rss-MB-peer 150",
			},
		},
		{
			name: "claude side by side: misses",
			in: "BenchmarkClaude-2 12 9e9 ns/op 20.5 cold-ms-over-cli 0.021 init-ratio-vs-peer " +
				"0.06 new-ratio-vs-peer 0.25 rss-ratio-vs-peer 1.2 turn-ratio-vs-cli\n",
			code: 1,
			rows: []string{
				"cold-ms-over-cli 20.5 <= 20 FAIL",
				"init-ratio-vs-peer 0.021 <= 0.02 FAIL",
				"new-ratio-vs-peer 0.06 <= 0.05 FAIL",
				"rss-ratio-vs-peer 0.25 <= 0.2 FAIL",
				"turn-ratio-vs-cli 1.2 <= 1.05 FAIL",
			},
			stderr: []string{"5 target(s) missed"},
		},
		{
			name:     "no results",
			in:       "# github.com/acpbridge/acpbridge/cmd/acpbridge\nmain.go:1: syntax error\n",
			code:     1,
			stderr:   []string{"syntax error", "no benchmark results"},
			noStdout: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(strings.NewReader(tt.in), &out, &errOut)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			table := squeeze(out.String())
			at := 0
			for _, row := range tt.rows {
				i := strings.Index(table[at:], row)
				if i < 0 {
					t.Errorf("table lacks %q (in order) in\n%s", row, out.String())
					continue
				}
				at += i + len(row)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut.String())
				}
			}
			if tt.noStdout && out.Len() > 0 {
				t.Errorf("stdout = %q, want nothing", out.String())
			}
			if strings.Contains(out.String(), "goos") {
				t.Errorf("non-benchmark lines reached stdout:\n%s", out.String())
			}
		})
	}
}

// squeeze collapses the tabwriter's column padding to one blank.
func squeeze(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(strings.Join(strings.Fields(line), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		name string
	}{
		{"BenchmarkX-8 \t 5 \t 10 ns/op", true, "X"},
		{"BenchmarkX/sub-case-16 5 10 ns/op 2 B/op", true, "X/sub-case"},
		{"BenchmarkX", false, ""},
		{"BenchmarkX-8 five 10 ns/op", false, ""},
		{"BenchmarkX-8 5 10", false, ""},
		{"--- BENCH: BenchmarkX-8", false, ""},
	}
	for _, tt := range tests {
		r, ok := parseLine(tt.line)
		if ok != tt.ok || r.name != tt.name {
			t.Errorf("parseLine(%q) = %q, %v; want %q, %v", tt.line, r.name, ok, tt.name, tt.ok)
		}
	}
}
