package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// modelsCLI is a stand-in CLI that lists models in its initialize answer,
// once gate is closed (nil: at once), then answers set_model and records
// the models it was asked for.
type modelsCLI struct {
	models []string
	gate   chan struct{}
	stop   <-chan struct{} // ends a wait at the gate (the test's end)

	mu  sync.Mutex
	set []string // guarded by mu
}

func (m *modelsCLI) play(c *cli) error {
	req, err := c.next()
	if err != nil {
		return err
	}
	if m.gate != nil {
		select {
		case <-m.gate:
		case <-m.stop:
			return nil
		}
	}
	list := []map[string]any{}
	for _, v := range m.models {
		// Effort as the pinned CLI reports it for every model.
		list = append(list, map[string]any{"value": v, "resolvedModel": "claude-" + v, "displayName": v + " name", "description": v + " model",
			"supportsEffort": true, "supportedEffortLevels": defaultEffortLevels})
	}
	b, _ := json.Marshal(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": req.Get("request_id").String(),
		"response": map[string]any{"commands": []any{}, "models": list, "claude_code_version": "9.9.9"}}})
	if err := c.write(string(b)); err != nil {
		return err
	}
	for {
		req, err := c.next()
		if err != nil {
			return err
		}
		if req.Get("request.subtype").String() == "set_model" {
			m.mu.Lock()
			m.set = append(m.set, req.Get("request.model").String())
			m.mu.Unlock()
			if err := c.write(`{"type":"control_response","response":{"subtype":"success","request_id":"` + req.Get("request_id").String() + `","response":{}}}`); err != nil {
				return err
			}
		}
	}
}

func (m *modelsCLI) asked() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.set)
}

// modelValues lists the values of the model select.
func modelValues(opts []acp.SessionConfigOption) []string {
	var out []string
	for _, o := range opts {
		if o.ID == configModel && o.Select != nil {
			for _, v := range o.Select.Options.Ungrouped {
				out = append(out, string(v.Value))
			}
		}
	}
	return out
}

// openWithin opens a session, failing the test if that takes until the
// deadline: with a known list, opening must not wait for the CLI.
func openWithin(t *testing.T, a *Adapter, c acp.Client, deadline time.Duration) acp.Session {
	t.Helper()
	type opened struct {
		s   acp.Session
		err error
	}
	done := make(chan opened, 1)
	go func() {
		s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, c)
		done <- opened{s, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.s
	case <-time.After(deadline):
		t.Fatalf("session/new still waits for the CLI after %v although its model list is known", deadline)
		return nil
	}
}

// TestModelsAtOpen checks that the answer that opens a session lists the
// CLI's real models: on a fresh cache the first session waits for the
// CLI's initialize answer; later sessions, in this adapter or in a new one
// reading the same file, answer at once with the remembered list; a list
// that changed is sent as config_option_update and remembered; and a model
// of the list can be chosen right after the session opens (acpx --model).
func TestModelsAtOpen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cache", "claude-models.json")
	newAdapter := func(m *modelsCLI) *Adapter {
		return newTestAdapter(t, &launcher{plays: []func(*cli) error{m.play}},
			Options{ModelCache: file, ModelWait: time.Minute})
	}
	want := []string{"default", "opus", "haiku"}

	// A fresh cache: the first session waits for the list.
	a1 := newAdapter(&modelsCLI{models: want})
	s1, err := a1.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	if got := modelValues(s1.State().ConfigOptions); !slices.Equal(got, want) {
		t.Fatalf("first session lists models %q, want the CLI's %q", got, want)
	}

	// Known: a second session answers before its CLI has said anything.
	gated := &modelsCLI{models: want, gate: make(chan struct{}), stop: t.Context().Done()}
	a1b := newAdapter(gated) // the same file, a fresh memory: a new bridge process
	s2 := openWithin(t, a1b, &acptest.Client{}, 10*time.Second)
	if got := modelValues(s2.State().ConfigOptions); !slices.Equal(got, want) {
		t.Errorf("session of a new adapter lists models %q, want the remembered %q", got, want)
	}
	close(gated.gate)
	// acpx sets the model it was given right after session/new.
	if _, err := s2.SetConfigOption(t.Context(), acp.SetSessionConfigOptionRequest{SessionID: s2.ID(), ConfigID: configModel,
		Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID("haiku"))}}); err != nil {
		t.Fatalf("choosing haiku right after session/new: %v", err)
	}
	if got := gated.asked(); !slices.Equal(got, []string{"haiku"}) {
		t.Errorf("the CLI was asked for models %q, want [haiku]", got)
	}

	// The CLI now lists other models: the session says so, and the next
	// session opens with the new list.
	changed := []string{"default", "sonnet"}
	var mu sync.Mutex
	var updates [][]string
	sawUpdate := make(chan struct{}, 1)
	client := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		if u := n.Update.ConfigOptionUpdate; u != nil {
			mu.Lock()
			updates = append(updates, modelValues(u.ConfigOptions))
			mu.Unlock()
			select {
			case sawUpdate <- struct{}{}:
			default:
			}
		}
		return nil
	}}
	// Gated, so that the CLI cannot answer before the session's state is
	// read: on a loaded machine it did.
	gated2 := &modelsCLI{models: changed, gate: make(chan struct{}), stop: t.Context().Done()}
	a2 := newAdapter(gated2)
	s3 := openWithin(t, a2, client, 10*time.Second)
	if got := modelValues(s3.State().ConfigOptions); !slices.Equal(got, want) {
		t.Errorf("session lists models %q, want the remembered %q until the CLI answers", got, want)
	}
	close(gated2.gate)
	select {
	case <-sawUpdate:
	case <-time.After(10 * time.Second):
		t.Fatal("no config_option_update for the changed model list")
	}
	mu.Lock()
	if len(updates) != 1 || !slices.Equal(updates[0], changed) {
		t.Errorf("config_option_update models %q, want one with %q", updates, changed)
	}
	mu.Unlock()
	gated3 := &modelsCLI{models: changed, gate: make(chan struct{}), stop: t.Context().Done()}
	a3 := newAdapter(gated3)
	s4 := openWithin(t, a3, &acptest.Client{}, 10*time.Second)
	close(gated3.gate)
	if got := modelValues(s4.State().ConfigOptions); !slices.Equal(got, changed) {
		t.Errorf("after the change, a session lists models %q, want %q", got, changed)
	}
}

// TestModelsSameListNoUpdate checks that a session that opened with the
// list its CLI then reports sends no config_option_update for it.
func TestModelsSameListNoUpdate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claude-models.json")
	models := []string{"default", "haiku"}
	first := &modelsCLI{models: models}
	a := newTestAdapter(t, &launcher{plays: []func(*cli) error{first.play}}, Options{ModelCache: file, ModelWait: time.Minute})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, &acptest.Client{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	var kinds []string
	var mu sync.Mutex
	c := &acptest.Client{Update: func(_ context.Context, n acp.SessionNotification) error {
		mu.Lock()
		kinds = append(kinds, n.Update.Kind())
		mu.Unlock()
		return nil
	}}
	second := &modelsCLI{models: models}
	a2 := newTestAdapter(t, &launcher{plays: []func(*cli) error{second.play}}, Options{ModelCache: file, ModelWait: time.Minute})
	s2, err := a2.NewSession(t.Context(), acp.NewSessionRequest{Cwd: "/w"}, c)
	if err != nil {
		t.Fatal(err)
	}
	// A set_model round trip proves the initialize answer was handled.
	if _, err := s2.SetConfigOption(t.Context(), acp.SetSessionConfigOptionRequest{SessionID: s2.ID(), ConfigID: configModel,
		Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID("default"))}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(kinds, "config_option_update") {
		t.Errorf("updates %q: the unchanged model list was sent again", kinds)
	}
}

// TestModelCacheFile covers the file: it survives a new cache, a broken
// file is ignored, and the key follows the executable.
func TestModelCacheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "claude-models.json")
	ms := []model{{value: "default", resolved: "claude-x", name: "Default", description: "d"}}
	newModelCache(file, testLogger(t)).put("k", "1.0", ms)
	got, ok := newModelCache(file, testLogger(t)).get("k")
	if !ok || !slices.Equal(got, ms) {
		t.Errorf("reloaded %v, %v; want %v", got, ok, ms)
	}
	if _, ok := newModelCache(file, testLogger(t)).get("other"); ok {
		t.Error("a key never stored was found")
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newModelCache(file, testLogger(t))
	if _, ok := c.get("k"); ok {
		t.Error("a broken file gave a list")
	}
	c.put("k", "1.0", ms)
	if got, ok := newModelCache(file, testLogger(t)).get("k"); !ok || !slices.Equal(got, ms) {
		t.Errorf("a broken file was not replaced: %v, %v", got, ok)
	}

	exe := filepath.Join(dir, "claude")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	k1 := cliKey(exe)
	if k1 != cliKey(exe) {
		t.Error("the key of one executable changes between calls")
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n# a new version\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if k1 == cliKey(exe) {
		t.Error("the key did not change with the executable")
	}
}

// TestModelsAtReopen checks that session/load and session/resume answer
// with the CLI's models too, not a placeholder.
func TestModelsAtReopen(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(transcriptDir, "text.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"default", "sonnet", "haiku"}
	for _, load := range []bool{true, false} {
		t.Run(map[bool]string{true: "load", false: "resume"}[load], func(t *testing.T) {
			config := t.TempDir()
			id := storeSession(t, config, recordedCwd, data)
			m := &modelsCLI{models: want}
			a := newTestAdapter(t, &launcher{plays: []func(*cli) error{m.play}}, Options{
				Env: []string{"CLAUDE_CONFIG_DIR=" + config}, ModelCache: filepath.Join(t.TempDir(), "m.json"), ModelWait: time.Minute})
			var s acp.Session
			if load {
				s, err = a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: recordedCwd}, &acptest.Client{})
			} else {
				s, err = a.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionID: id, Cwd: recordedCwd}, &acptest.Client{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := modelValues(s.State().ConfigOptions); !slices.Equal(got, want) {
				t.Errorf("models %q, want the CLI's %q", got, want)
			}
		})
	}
}
