package main

import (
	"fmt"
	"runtime/debug"

	buildversion "github.com/acpbridge/acpbridge/internal/version"
)

// The build stamps these with -ldflags "-X main.version=... -X main.commit=...
// -X main.date=..." (make build, make dist; cmd/dev/buildinfo derives them
// from git). version is a semantic version: the release tag (v1.2.3), or
// v0.0.0-dev+COMMIT off a tag, with +dirty (.dirty after a commit) for a
// tree with uncommitted changes. date is the commit's date, not the time of
// the build, so that the same commit always builds the same bytes.
var (
	version string
	commit  string
	date    string
)

// buildInfo is the version, commit and date of this binary: as stamped, else
// what the Go toolchain recorded of the source tree (a plain go build in a
// git clone), else a development version that says it knows no more.
func buildInfo() (ver, rev, when string) {
	ver, rev, when = version, commit, date
	if ver != "" {
		return ver, orUnknown(rev), orUnknown(when)
	}
	var dirty bool
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	return buildversion.Dev(rev, dirty), orUnknown(rev), orUnknown(when)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// versionLine is what --version prints after "acpbridge version ".
func versionLine() string {
	v, rev, when := buildInfo()
	return fmt.Sprintf("%s (commit %s, built %s)", v, rev, when)
}

// semver is the bridge's version as agentInfo.version tells the editor.
func semver() string {
	v, _, _ := buildInfo()
	return v
}
