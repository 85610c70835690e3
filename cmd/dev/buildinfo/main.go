// Command buildinfo prints the version, commit and date to stamp a build of
// acpbridge with, from the git tree it runs in, one per line, then the date
// again as Unix seconds (the time of every file in the release archives):
// make build and make dist pass them on. The version is the release tag on HEAD
// (v1.2.3), else v0.0.0-dev+COMMIT; either gets "dirty" build metadata when
// the tree has changes git would commit or untracked files (as GoReleaser
// judges it). The date is the commit's, in UTC, so that building a commit
// twice gives the same bytes. Outside a git tree it prints a development
// version, "unknown" twice and 0.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/internal/version"
)

func main() {
	dir := flag.String("C", ".", "the git tree to describe")
	flag.Parse()
	v, rev, date := describe(*dir)
	var epoch int64
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		epoch = t.Unix()
	}
	fmt.Printf("%s\n%s\n%s\n%d\n", v, rev, date, epoch)
}

// describe returns the version, full commit id and commit date of the tree
// in dir.
func describe(dir string) (v, rev, date string) {
	rev, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return version.Dev("", false), "unknown", "unknown"
	}
	status, _ := git(dir, "status", "--porcelain")
	dirty := status != ""
	date = "unknown"
	if ts, err := git(dir, "log", "-1", "--format=%ct"); err == nil {
		if sec, err := strconv.ParseInt(ts, 10, 64); err == nil {
			date = time.Unix(sec, 0).UTC().Format(time.RFC3339)
		}
	}
	tags, _ := git(dir, "tag", "--points-at", "HEAD", "--sort=-v:refname", "--list", "v*")
	for _, t := range strings.Fields(tags) {
		if version.IsRelease(t) {
			return version.Tagged(t, dirty), rev, date
		}
	}
	return version.Dev(rev, dirty), rev, date
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

func init() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: buildinfo [-C DIR]  (prints version, commit and date, one per line)")
		flag.PrintDefaults()
	}
}
