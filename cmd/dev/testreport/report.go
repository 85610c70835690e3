package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json), including the
// build events go test adds (build-output, build-fail, keyed by
// ImportPath).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// skip is a skipped test and why.
type skip struct {
	name, why string
}

// summary is what a run came to.
type summary struct {
	passed, failed, skipped int
	skips                   []skip
	// broken counts packages that failed without a failing test: a build
	// failure, a panic or timeout that killed the test binary, a TestMain
	// that exited non-zero.
	broken int
}

// ok reports whether the run passed; under ci a skipped test is a failure.
func (s summary) ok(ci bool) bool {
	return s.failed == 0 && s.broken == 0 && (!ci || s.skipped == 0)
}

// reporter turns the event stream into the usual human output: a line per
// package, the whole output of every failing test and package, the skipped
// tests with their reasons, and a summary line.
type reporter struct {
	w    io.Writer
	out  map[string]*bytes.Buffer   // output so far, by package + "\x00" + test
	open map[string]map[string]bool // tests running, by package
	bad  map[string]bool            // packages with a failed test
	sum  summary
}

func newReporter(w io.Writer) *reporter {
	return &reporter{w: w, out: map[string]*bytes.Buffer{}, open: map[string]map[string]bool{}, bad: map[string]bool{}}
}

// report reads a `go test -json` stream to its end and returns the summary;
// it has printed everything but the skip list and the summary line, which
// finish adds.
func report(r io.Reader, w io.Writer) (summary, error) {
	rp := newReporter(w)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			rp.line(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return rp.sum, err
		}
	}
	rp.unfinished()
	return rp.sum, nil
}

func (rp *reporter) buf(pkg, test string) *bytes.Buffer {
	k := pkg + "\x00" + test
	b := rp.out[k]
	if b == nil {
		b = &bytes.Buffer{}
		rp.out[k] = b
	}
	return b
}

func (rp *reporter) take(pkg, test string) string {
	k := pkg + "\x00" + test
	b := rp.out[k]
	delete(rp.out, k)
	if b == nil {
		return ""
	}
	return b.String()
}

func (rp *reporter) line(line []byte) {
	var e event
	if line[0] != '{' || json.Unmarshal(line, &e) != nil {
		// Not an event (go test's own complaints): show it as it is.
		rp.w.Write(line)
		return
	}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(rp.w, e.Output)
	case e.Action == "build-fail":
		// The package's fail event (FailedBuild) counts it.
	case e.Test != "":
		rp.test(e)
	default:
		rp.pkg(e)
	}
}

func (rp *reporter) test(e event) {
	switch e.Action {
	case "run":
		if rp.open[e.Package] == nil {
			rp.open[e.Package] = map[string]bool{}
		}
		rp.open[e.Package][e.Test] = true
	case "output":
		rp.buf(e.Package, e.Test).WriteString(e.Output)
	case "pass":
		delete(rp.open[e.Package], e.Test)
		rp.take(e.Package, e.Test)
		rp.sum.passed++
	case "skip":
		delete(rp.open[e.Package], e.Test)
		rp.sum.skipped++
		rp.sum.skips = append(rp.sum.skips, skip{e.Package + " " + e.Test, skipReason(rp.take(e.Package, e.Test))})
	case "fail":
		delete(rp.open[e.Package], e.Test)
		rp.sum.failed++
		rp.bad[e.Package] = true
		fmt.Fprint(rp.w, rp.take(e.Package, e.Test))
	}
}

func (rp *reporter) pkg(e event) {
	switch e.Action {
	case "output":
		rp.buf(e.Package, "").WriteString(e.Output)
	case "pass", "skip":
		// "ok  pkg 1.2s" or "?  pkg [no test files]": the last line.
		out := rp.take(e.Package, "")
		fmt.Fprint(rp.w, lastLine(out))
	case "fail":
		// Everything the package printed outside its tests: a panic's
		// stack, a timeout, a TestMain's complaint, the FAIL lines.
		rp.finishOpen(e.Package)
		if !rp.bad[e.Package] {
			rp.sum.broken++
		}
		fmt.Fprint(rp.w, rp.take(e.Package, ""))
	}
}

// finishOpen reports tests of pkg that started but never ended (the test
// binary died in them) as failed, with their output.
func (rp *reporter) finishOpen(pkg string) {
	names := make([]string, 0, len(rp.open[pkg]))
	for t := range rp.open[pkg] {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		rp.sum.failed++
		rp.bad[pkg] = true
		fmt.Fprintf(rp.w, "--- FAIL: %s (did not finish)\n%s", t, rp.take(pkg, t))
	}
	delete(rp.open, pkg)
}

// unfinished handles a stream that ended with tests still running (go test
// was killed): they failed.
func (rp *reporter) unfinished() {
	pkgs := make([]string, 0, len(rp.open))
	for p := range rp.open {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		rp.finishOpen(p)
	}
}

// skipReason is what a skipped test said, without the framing lines.
func skipReason(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		keep = append(keep, t)
	}
	return strings.Join(keep, " ")
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return s + "\n"
}

// finish prints the skipped tests and the summary line.
func finish(w io.Writer, s summary, ci bool) {
	if len(s.skips) > 0 {
		fmt.Fprintf(w, "\nskipped tests:\n")
		for _, sk := range s.skips {
			fmt.Fprintf(w, "  %s: %s\n", sk.name, sk.why)
		}
		if ci {
			fmt.Fprintf(w, "CI=true: a skipped test is a failure (install what it needs)\n")
		}
	}
	if s.broken > 0 {
		fmt.Fprintf(w, "\n%d package(s) failed outside any test (build failure, crash or timeout)\n", s.broken)
	}
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
}
