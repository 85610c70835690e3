package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// versionTimeout bounds each CLI's --version. Gemini CLI, opencode and
// Copilot CLI are node programs that took 4 to 8 s each to answer
// --version on a loaded 2-core machine, and a 5 s bound failed them (issue
// 20); a broken CLI must still not hold the listing up for long. Once
// answered, a version is cached (versionCache), so only the first listing
// after an install or an update waits.
const versionTimeout = 20 * time.Second

// versionProbe asks installed CLIs their version: all at once, each within
// timeout, with the answers cached in the file cache ("" caches nothing).
type versionProbe struct {
	cache   string
	timeout time.Duration
	run     func(ctx context.Context, path string) (string, error) // the CLI's --version
}

// versionResult is what the probe learnt of one executable: its version,
// or why there is none.
type versionResult struct {
	version, problem string
}

// versions probes paths (executables found on PATH) and returns their
// results in the same order. An executable whose cached answer is still
// the one of the file on disk is not run; the others run concurrently, so
// the slowest one, not their sum, is what a cold listing waits for.
func (p versionProbe) versions(ctx context.Context, paths []string) []versionResult {
	cache := loadVersionCache(p.cache)
	out := make([]versionResult, len(paths))
	type probed struct {
		key  versionKey
		idxs []int
	}
	todo := map[string]*probed{} // by resolved path: one run for an executable listed twice
	for i, path := range paths {
		key, err := keyOf(path)
		if err != nil {
			out[i].problem = err.Error()
			continue
		}
		if v, ok := cache.get(key); ok {
			out[i].version = v
			continue
		}
		if todo[key.path] == nil {
			todo[key.path] = &probed{key: key}
		}
		todo[key.path].idxs = append(todo[key.path].idxs, i)
	}
	var (
		wg sync.WaitGroup
		mu sync.Mutex // guards out and cache while probes run
	)
	for _, t := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.probeOne(ctx, paths[t.idxs[0]])
			mu.Lock()
			defer mu.Unlock()
			for _, i := range t.idxs {
				out[i] = r
			}
			if r.problem == "" {
				cache.put(t.key, r.version)
			}
		}()
	}
	wg.Wait()
	cache.save()
	return out
}

// probeOne runs one CLI's --version within the probe's bound.
func (p versionProbe) probeOne(ctx context.Context, path string) versionResult {
	vctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	v, err := p.run(vctx, path)
	switch {
	case err == nil && v == "":
		return versionResult{problem: "--version printed nothing"}
	case errors.Is(err, context.DeadlineExceeded):
		return versionResult{problem: fmt.Sprintf("--version did not answer within %s (a busy machine? run acpbridge agents again)", p.timeout)}
	case err != nil:
		return versionResult{problem: fmt.Sprintf("--version failed: %v", err)}
	}
	return versionResult{version: v}
}

// versionKey names an executable as it is on disk: the file its path
// resolves to (npm installs a CLI as a symbolic link into its package),
// with that file's size and modification time. An install or an update
// replaces the file, which changes them, so a cached version is never
// shown for another build of the CLI.
type versionKey struct {
	path    string
	size    int64
	modTime int64 // Unix nanoseconds
}

func keyOf(path string) (versionKey, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return versionKey{}, err
	}
	if abs, err := filepath.Abs(resolved); err == nil {
		resolved = abs
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return versionKey{}, err
	}
	return versionKey{path: resolved, size: fi.Size(), modTime: fi.ModTime().UnixNano()}, nil
}

// versionCache is the file of the versions executables answered, read once
// and written once per listing. It only saves time: a file that is
// missing, unreadable, not ours or cannot be written is an empty cache,
// never an error of the command.
type versionCache struct {
	path    string
	entries map[string]cachedVersion // by resolved path
	changed bool
}

// cachedVersion is one executable's answer, with the size and time of the
// file that gave it.
type cachedVersion struct {
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Version string `json:"version"`
}

// versionCacheFile is the file's layout; Format changes when it does.
type versionCacheFile struct {
	Format      int                      `json:"format"`
	Executables map[string]cachedVersion `json:"executables"`
}

const versionCacheFormat = 1

// defaultVersionCache is agent-versions.json in the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), or "" when
// there is none.
func defaultVersionCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "acpbridge", "agent-versions.json")
}

func loadVersionCache(path string) *versionCache {
	c := &versionCache{path: path, entries: map[string]cachedVersion{}}
	if path == "" {
		return c
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f versionCacheFile
	if json.Unmarshal(b, &f) != nil || f.Format != versionCacheFormat {
		c.changed = true // rewrite what is not ours to read
		return c
	}
	for p, e := range f.Executables {
		if e.Version != "" {
			c.entries[p] = e
		}
	}
	return c
}

func (c *versionCache) get(k versionKey) (string, bool) {
	e, ok := c.entries[k.path]
	if !ok || e.Size != k.size || e.ModTime != k.modTime {
		return "", false
	}
	return e.Version, true
}

func (c *versionCache) put(k versionKey, version string) {
	c.entries[k.path] = cachedVersion{Size: k.size, ModTime: k.modTime, Version: version}
	c.changed = true
}

// save writes the file when it changed, dropping the entries of
// executables that are gone or were replaced since, through a rename so
// that a listing running beside this one never reads half of it. Errors
// are dropped: the next listing probes again.
func (c *versionCache) save() {
	if !c.changed || c.path == "" {
		return
	}
	for p, e := range c.entries {
		if k, err := keyOf(p); err != nil || k.size != e.Size || k.modTime != e.ModTime {
			delete(c.entries, p)
		}
	}
	b, err := json.MarshalIndent(versionCacheFile{Format: versionCacheFormat, Executables: c.entries}, "", "  ")
	if err != nil {
		return
	}
	dir := filepath.Dir(c.path)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".agent-versions-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name())
	}
}
