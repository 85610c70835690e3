package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/rs/zerolog"
)

// modelCache remembers the model list each Claude Code executable reported
// in its initialize answer, so that the answer that opens a session can
// carry the real list at once instead of a placeholder: the CLI answers
// initialize only some hundreds of milliseconds after it starts, and
// clients pick a model from that answer (acpx --model haiku fails on a
// model the answer does not list). A list that turns out different when the
// CLI answers is corrected with config_option_update and replaces the
// remembered one.
//
// The list is kept in memory and, when path is set, in a small JSON file,
// so a new bridge process starts with it too. Safe for concurrent use.
type modelCache struct {
	path string // the file; "" keeps the lists in memory only
	log  zerolog.Logger

	mu      sync.Mutex
	loaded  bool                    // guarded by mu; the file was read
	entries map[string]cachedModels // guarded by mu; by cliKey
}

// cachedModels is what one executable reported.
type cachedModels struct {
	// Version is the CLI's claude_code_version, for whoever reads the file.
	Version string        `json:"version,omitempty"`
	Models  []cachedModel `json:"models"`
}

type cachedModel struct {
	Value       string `json:"value"`
	Resolved    string `json:"resolvedModel,omitempty"`
	Name        string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
}

// modelCacheFile is the file's layout; Format changes when it does.
type modelCacheFile struct {
	Format int                     `json:"format"`
	CLIs   map[string]cachedModels `json:"clis"`
}

const modelCacheFormat = 1

// DefaultModelCache is the file Options.ModelCache defaults to with the
// real launcher: claude-models.json in the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux), or "" when
// there is none.
func DefaultModelCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "acpbridge", "claude-models.json")
}

func newModelCache(path string, log zerolog.Logger) *modelCache {
	return &modelCache{path: path, log: log, entries: map[string]cachedModels{}}
}

// cliKey names the executable a list belongs to, cheaply: a stat, not a
// run of claude --version (which costs a process start). An update of the
// CLI replaces the file, which changes its size or modification time. The
// account and settings can shape the list too; a session whose CLI lists
// other models corrects it with config_option_update, and the new list is
// kept.
func cliKey(path string) string {
	resolved, err := exec.LookPath(path)
	if err != nil {
		return path // an in-process stand-in, or missing
	}
	if abs, err := filepath.Abs(resolved); err == nil {
		resolved = abs
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return resolved
	}
	return resolved + "|" + strconv.FormatInt(fi.Size(), 10) + "|" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// get returns the list remembered for key.
func (c *modelCache) get(key string) ([]model, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	e, ok := c.entries[key]
	if !ok || len(e.Models) == 0 {
		return nil, false
	}
	out := make([]model, len(e.Models))
	for i, m := range e.Models {
		out[i] = model{value: m.Value, resolved: m.Resolved, name: m.Name, description: m.Description}
	}
	return out, true
}

// put remembers the list key's CLI reported, writing the file when it
// changed.
func (c *modelCache) put(key, version string, ms []model) {
	e := cachedModels{Version: version, Models: make([]cachedModel, len(ms))}
	for i, m := range ms {
		e.Models[i] = cachedModel{Value: m.value, Resolved: m.resolved, Name: m.name, Description: m.description}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	if old, ok := c.entries[key]; ok && old.Version == e.Version && slices.Equal(old.Models, e.Models) {
		return
	}
	c.entries[key] = e
	if c.path == "" {
		return
	}
	if err := c.saveLocked(); err != nil {
		c.log.Debug().Err(err).Str("file", c.path).Msg("saving the model list")
	}
}

// loadLocked reads the file once. A missing or unreadable file is an empty
// cache: it only saves time. Callers hold mu.
func (c *modelCache) loadLocked() {
	if c.loaded || c.path == "" {
		return
	}
	c.loaded = true
	b, err := os.ReadFile(c.path)
	if err != nil {
		return
	}
	var f modelCacheFile
	if err := json.Unmarshal(b, &f); err != nil || f.Format != modelCacheFormat {
		c.log.Debug().Err(err).Str("file", c.path).Msg("ignoring the model list cache")
		return
	}
	for k, e := range f.CLIs {
		if _, ok := c.entries[k]; !ok {
			c.entries[k] = e
		}
	}
}

// saveLocked writes the file whole, through a rename, so that another
// bridge reading it never sees half of it. Callers hold mu.
func (c *modelCache) saveLocked() error {
	b, err := json.MarshalIndent(modelCacheFile{Format: modelCacheFormat, CLIs: c.entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".claude-models-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %v", tmp.Name(), firstErr(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
