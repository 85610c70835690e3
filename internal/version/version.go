// Package version names builds of acpbridge with semantic versions: a
// release is its tag, anything else is v0.0.0-dev with the commit as build
// metadata, and a tree with uncommitted changes says so. Both the shipped
// binary (for a build that was not stamped) and the build scripts (which
// stamp it) use it, so the two cannot disagree. It imports only the
// standard library.
package version

import (
	"regexp"
	"sync"
)

// Dev is the version of a build that is not of a release tag. rev is the
// full commit id, "" when unknown.
func Dev(rev string, dirty bool) string {
	var meta []string
	if rev != "" {
		meta = append(meta, Short(rev))
	}
	if dirty {
		meta = append(meta, "dirty")
	}
	return withMeta("v0.0.0-dev", meta)
}

// Tagged is the version of a build of release tag tag ("v1.2.3").
func Tagged(tag string, dirty bool) string {
	if dirty {
		return withMeta(tag, []string{"dirty"})
	}
	return tag
}

func withMeta(v string, meta []string) string {
	for i, m := range meta {
		if i == 0 {
			v += "+"
		} else {
			v += "."
		}
		v += m
	}
	return v
}

// Short is the prefix of a commit id that names it in a version: 12 hex
// digits, as in Go's pseudo-versions.
func Short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// release matches the tags that are releases: v and a semantic version
// (semver.org's grammar, pre-release allowed, build metadata not).
// Compiled when first used: every run of the binary links this package,
// few ask it.
var release = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
})

// IsRelease reports whether tag names a release.
func IsRelease(tag string) bool { return release().MatchString(tag) }

// semverRE is semver.org's grammar with a leading v.
var semverRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
})

// Valid reports whether v is a semantic version with a leading v.
func Valid(v string) bool { return semverRE().MatchString(v) }
