package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/native"
)

// fakeVersionCLI writes an executable shell script named name in dir whose
// --version runs body (after counting its runs in name.runs).
func fakeVersionCLI(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\necho run >> '" + p + ".runs'\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runs is how many times the fake CLI at p was run.
func runs(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p + ".runs")
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

func requireShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake CLIs are shell scripts")
	}
}

// TestVersionCache: a version is asked once per build of an executable;
// a change of its size or of its modification time asks again, and a
// corrupt or unwritable cache file costs a probe, never the listing.
func TestVersionCache(t *testing.T) {
	requireShell(t)
	t.Parallel()
	dir := t.TempDir()
	cli := fakeVersionCLI(t, dir, "agent", "echo agent 1.0")
	// Listed through a symbolic link, as npm installs a CLI: the cache
	// keys the file it resolves to.
	link := filepath.Join(dir, "bin-agent")
	if err := os.Symlink(cli, link); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "acpbridge", "agent-versions.json")
	probe := versionProbe{cache: cache, timeout: time.Minute, run: native.Version}
	check := func(step, wantVersion string, wantRuns int) {
		t.Helper()
		got := probe.versions(t.Context(), []string{link})
		if got[0].version != wantVersion || got[0].problem != "" {
			t.Errorf("%s: %+v, want version %q", step, got[0], wantVersion)
		}
		if n := runs(t, cli); n != wantRuns {
			t.Errorf("%s: the CLI ran %d times in all, want %d", step, n, wantRuns)
		}
	}

	check("cold", "agent 1.0", 1)
	check("warm", "agent 1.0", 1)

	// An update of the same size (1.0 → 2.0), only its time differs.
	fi, err := os.Stat(cli)
	if err != nil {
		t.Fatal(err)
	}
	fakeVersionCLI(t, dir, "agent", "echo agent 2.0")
	if err := os.Chtimes(cli, fi.ModTime().Add(time.Hour), fi.ModTime().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	check("modification time changed", "agent 2.0", 2)
	check("warm again", "agent 2.0", 2)

	// An update of another size with the old time.
	fi, err = os.Stat(cli)
	if err != nil {
		t.Fatal(err)
	}
	fakeVersionCLI(t, dir, "agent", "echo agent 2.0.1")
	if err := os.Chtimes(cli, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("size changed", "agent 2.0.1", 3)

	if err := os.WriteFile(cache, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("corrupt cache", "agent 2.0.1", 4)
	check("cache rewritten", "agent 2.0.1", 4)

	// A cache whose directory cannot be made (its parent is a file).
	probe.cache = filepath.Join(cli, "agent-versions.json")
	check("unwritable cache", "agent 2.0.1", 5)
	check("unwritable cache again", "agent 2.0.1", 6)
}

// TestVersionCacheForgetsFailures: an executable that failed its probe is
// probed again next time, and an entry of an executable that is gone is
// dropped from the file.
func TestVersionCacheForgetsFailures(t *testing.T) {
	requireShell(t)
	t.Parallel()
	dir := t.TempDir()
	bad := fakeVersionCLI(t, dir, "bad", "exit 3")
	gone := fakeVersionCLI(t, dir, "gone", "echo gone 1")
	cache := filepath.Join(dir, "agent-versions.json")
	probe := versionProbe{cache: cache, timeout: time.Minute, run: native.Version}
	for range 2 {
		got := probe.versions(t.Context(), []string{bad, gone})
		if got[0].problem == "" || got[1].version != "gone 1" {
			t.Fatalf("got %+v", got)
		}
	}
	if n := runs(t, bad); n != 2 {
		t.Errorf("the failing CLI ran %d times, want 2 (a failure is not cached)", n)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	good := fakeVersionCLI(t, dir, "good", "echo good 1")
	probe.versions(t.Context(), []string{good})
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "gone") || !strings.Contains(string(b), "good 1") {
		t.Errorf("cache file after the removal of gone:\n%s", b)
	}
}

// TestVersionProbesConcurrent: the probes run at once, and one that does
// not answer within the bound fails alone. Each CLI here answers only once
// every other one has started, which a probe run one after the other never
// sees (its first CLI gives up instead).
func TestVersionProbesConcurrent(t *testing.T) {
	requireShell(t)
	t.Parallel()
	dir := t.TempDir()
	const n = 4
	var paths []string
	for i := range n {
		name := "cli" + strconv.Itoa(i)
		wait := "touch '" + filepath.Join(dir, name+".started") + "'\n" +
			"i=0\nwhile [ \"$(ls '" + dir + "' | grep -c '\\.started$')\" -lt " + strconv.Itoa(n) + " ]; do\n" +
			"  i=$((i+1)); [ $i -gt 600 ] && { echo never together >&2; exit 1; }; sleep 0.05\ndone\n" +
			"echo " + name + " 1.0"
		paths = append(paths, fakeVersionCLI(t, dir, name, wait))
	}
	hung := fakeVersionCLI(t, dir, "hung", "exec sleep 600")
	paths = append(paths, hung)

	probe := versionProbe{timeout: 5 * time.Second, run: native.Version}
	got := probe.versions(t.Context(), paths)
	for i := range n {
		if want := "cli" + strconv.Itoa(i) + " 1.0"; got[i].version != want || got[i].problem != "" {
			t.Errorf("%s: %+v, want version %q", paths[i], got[i], want)
		}
	}
	if h := got[n]; h.version != "" || !strings.Contains(h.problem, "did not answer within 5s") {
		t.Errorf("the hung CLI: %+v, want a problem saying it did not answer within 5s", h)
	}
}
