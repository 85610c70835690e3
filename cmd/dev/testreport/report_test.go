package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Streams as `go test -json` writes them (times and elapsed dropped).
const (
	passStream = `{"Action":"start","Package":"p/a"}
{"Action":"run","Package":"p/a","Test":"TestOne"}
{"Action":"output","Package":"p/a","Test":"TestOne","Output":"=== RUN   TestOne\n"}
{"Action":"output","Package":"p/a","Test":"TestOne","Output":"--- PASS: TestOne (0.00s)\n"}
{"Action":"pass","Package":"p/a","Test":"TestOne"}
{"Action":"run","Package":"p/a","Test":"TestTwo"}
{"Action":"run","Package":"p/a","Test":"TestTwo/sub"}
{"Action":"pass","Package":"p/a","Test":"TestTwo/sub"}
{"Action":"pass","Package":"p/a","Test":"TestTwo"}
{"Action":"output","Package":"p/a","Output":"PASS\n"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.012s\n"}
{"Action":"pass","Package":"p/a"}
{"Action":"start","Package":"p/none"}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none"}
`
	skipStream = `{"Action":"run","Package":"p/b","Test":"TestReal"}
{"Action":"output","Package":"p/b","Test":"TestReal","Output":"=== RUN   TestReal\n"}
{"Action":"output","Package":"p/b","Test":"TestReal","Output":"    real_test.go:20: the Claude Code CLI is not installed: make claude-cli\n"}
{"Action":"output","Package":"p/b","Test":"TestReal","Output":"--- SKIP: TestReal (0.00s)\n"}
{"Action":"skip","Package":"p/b","Test":"TestReal"}
{"Action":"run","Package":"p/b","Test":"TestFine"}
{"Action":"pass","Package":"p/b","Test":"TestFine"}
{"Action":"output","Package":"p/b","Output":"ok  \tp/b\t0.002s\n"}
{"Action":"pass","Package":"p/b"}
`
	buildFailStream = `{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"# p/c [p/c.test]\n"}
{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"c/c.go:1:35: cannot use \"s\" (untyped string constant) as int value in return statement\n"}
{"ImportPath":"p/c [p/c.test]","Action":"build-fail"}
{"Action":"start","Package":"p/c"}
{"Action":"output","Package":"p/c","Output":"FAIL\tp/c [build failed]\n"}
{"Action":"fail","Package":"p/c","FailedBuild":"p/c [p/c.test]"}
`
	panicStream = `{"Action":"run","Package":"p/d","Test":"TestOK"}
{"Action":"pass","Package":"p/d","Test":"TestOK"}
{"Action":"run","Package":"p/d","Test":"TestPanic"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"=== RUN   TestPanic\n"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"    d_test.go:1: before\n"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"--- FAIL: TestPanic (0.00s)\n"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"panic: boom [recovered, repanicked]\n"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"goroutine 23 [running]:\n"}
{"Action":"output","Package":"p/d","Test":"TestPanic","Output":"p/d.TestPanic(0x20fd3a9c66c8?)\n"}
{"Action":"fail","Package":"p/d","Test":"TestPanic"}
{"Action":"output","Package":"p/d","Output":"FAIL\tp/d\t0.007s\n"}
{"Action":"fail","Package":"p/d"}
`
	// The test binary was killed (go test -timeout) while TestHang ran:
	// the test never ends, only the package does.
	timeoutStream = `{"Action":"run","Package":"p/e","Test":"TestHang"}
{"Action":"output","Package":"p/e","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"p/e","Test":"TestHang","Output":"    e_test.go:9: waiting for the CLI\n"}
{"Action":"output","Package":"p/e","Output":"panic: test timed out after 10m0s\n"}
{"Action":"output","Package":"p/e","Output":"\trunning tests:\n\t\tTestHang (10m0s)\n"}
{"Action":"output","Package":"p/e","Output":"FAIL\tp/e\t600.012s\n"}
{"Action":"fail","Package":"p/e"}
`
	// TestMain exited non-zero after every test passed.
	mainFailStream = `{"Action":"run","Package":"p/f","Test":"TestA"}
{"Action":"pass","Package":"p/f","Test":"TestA"}
{"Action":"output","Package":"p/f","Output":"leaked goroutines: 3\n"}
{"Action":"output","Package":"p/f","Output":"FAIL\tp/f\t0.010s\n"}
{"Action":"fail","Package":"p/f"}
`
)

func TestReport(t *testing.T) {
	tests := []struct {
		name                    string
		stream                  string
		passed, failed, skipped int
		ok, okCI                bool
		show                    []string // in the output
		hide                    []string // not in the output
	}{
		{name: "all pass", stream: passStream, passed: 3, ok: true, okCI: true,
			show: []string{"ok  \tp/a\t0.012s\n", "?   \tp/none\t[no test files]\n"},
			hide: []string{"=== RUN", "--- PASS", "PASS\n"}},
		{name: "a skip fails only under CI", stream: skipStream, passed: 1, skipped: 1, ok: true,
			show: []string{"skipped tests:\n  p/b TestReal: real_test.go:20: the Claude Code CLI is not installed: make claude-cli\n", "CI=true"}},
		{name: "a build failure fails", stream: buildFailStream,
			show: []string{"cannot use \"s\"", "FAIL\tp/c [build failed]", "1 package(s) failed outside any test"}},
		{name: "a panic fails, with its stack", stream: panicStream, passed: 1, failed: 1,
			show: []string{"d_test.go:1: before", "panic: boom", "goroutine 23 [running]", "FAIL\tp/d\t0.007s"}},
		{name: "a test that never ended failed", stream: timeoutStream, failed: 1,
			show: []string{"--- FAIL: TestHang (did not finish)", "e_test.go:9: waiting for the CLI", "panic: test timed out", "FAIL\tp/e"}},
		{name: "a package failing outside its tests fails", stream: mainFailStream, passed: 1,
			show: []string{"leaked goroutines: 3", "1 package(s) failed outside any test"}},
		{name: "not JSON is shown", stream: "go: updates to go.mod needed\n", ok: true, okCI: true,
			show: []string{"go: updates to go.mod needed\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s, err := report(strings.NewReader(tt.stream), &out)
			if err != nil {
				t.Fatal(err)
			}
			finish(&out, s, true)
			if s.passed != tt.passed || s.failed != tt.failed || s.skipped != tt.skipped {
				t.Errorf("counts %d/%d/%d, want %d/%d/%d passed/failed/skipped", s.passed, s.failed, s.skipped, tt.passed, tt.failed, tt.skipped)
			}
			if s.ok(false) != tt.ok || s.ok(true) != tt.okCI {
				t.Errorf("ok=%v ok under CI=%v, want %v and %v", s.ok(false), s.ok(true), tt.ok, tt.okCI)
			}
			got := out.String()
			for _, w := range tt.show {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.hide {
				if strings.Contains(got, w) {
					t.Errorf("output has %q:\n%s", w, got)
				}
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			want := fmt.Sprintf("tests: %d passed, %d failed, %d skipped", tt.passed, tt.failed, tt.skipped)
			if last := lines[len(lines)-1]; last != want {
				t.Errorf("last line %q, want %q", last, want)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	skipped := summary{passed: 3, skipped: 1}
	tests := []struct {
		name string
		s    summary
		ci   bool
		wait error
		want int
	}{
		{"clean", summary{passed: 3}, true, nil, 0},
		{"skip outside CI", skipped, false, nil, 0},
		{"skip under CI", skipped, true, nil, 1},
		{"failed test", summary{passed: 2, failed: 1}, false, nil, 1},
		{"broken package", summary{broken: 1}, false, nil, 1},
		// go test failed before any test ran (a bad flag, no module).
		{"go test failed with no events", summary{}, false, errors.New("exit status 1"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.s, tt.ci, tt.wait); got != tt.want {
				t.Errorf("exitCode = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestRunStdin drives the command end to end on a stream read from stdin:
// the exit status follows CI.
func TestRunStdin(t *testing.T) {
	for _, ci := range []string{"true", "false"} {
		t.Setenv("CI", ci)
		var out, errOut bytes.Buffer
		code := run(nil, strings.NewReader(skipStream), &out, &errOut)
		want := map[string]int{"true": 1, "false": 0}[ci]
		if code != want {
			t.Errorf("CI=%s: exit %d, want %d\n%s%s", ci, code, want, out.String(), errOut.String())
		}
		if !strings.HasSuffix(out.String(), "\ntests: 1 passed, 0 failed, 1 skipped\n") {
			t.Errorf("CI=%s: output does not end with the summary line:\n%s", ci, out.String())
		}
	}
}
