package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

var update = flag.Bool("update", false, "rewrite the want sections of the transcript testdata")

// editorStep is one line of a test case's editor section.
type editorStep struct {
	// Prompt is a string (one text block) or an array of content blocks.
	Prompt json.RawMessage `json:"prompt"`
	// Permissions are the option ids chosen, in order, for the prompt's
	// permission requests (default allow_once).
	Permissions []string `json:"permissions"`
	// Cancel cancels the prompt: "permission" when the first permission
	// request comes (which then waits for the cancel), or a session update
	// kind, after the first update of that kind. "hold" cancels nothing but
	// leaves permission requests unanswered until their context ends.
	Cancel   string `json:"cancel"`
	SetMode  string `json:"setMode"`
	SetModel string `json:"setModel"`
	// SetEffort sets the effort config option.
	SetEffort string `json:"setEffort"`
}

// TestTranscripts plays each testdata case's agent script with the fake
// agent, drives the adapter as its editor section says and compares what the
// adapter did (updates, permission requests, results) with the want section.
// Run with -update to rewrite the want sections.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, f)
		})
	}
}

func runTranscript(t *testing.T, path string) {
	fx, err := recording.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]editorStep, len(fx.Editor))
	for i, raw := range fx.Editor {
		if err := json.Unmarshal(raw, &steps[i]); err != nil {
			t.Fatalf("editor line %d: %v", i+1, err)
		}
	}
	rec := &transcript{}
	d := &driver{t: t, rec: rec, schema: acptest.Load(t)}
	if c := fx.Meta["caps"]; c != "" {
		// The editor's clientCapabilities, when the case needs some.
		if err := json.Unmarshal([]byte(c), &d.caps); err != nil {
			t.Fatalf("meta caps: %v", err)
		}
	}
	a := New(Options{
		Env:          []string{"CLAUDE_CONFIG_DIR=" + storeSection(t, fx)},
		Launch:       fakeLaunch(fx.Script, fx.Meta["session"], testSessionID),
		NewSessionID: func() string { return testSessionID },
		Logger:       testLogger(t),
		Trace:        d.trace,
		CancelGrace:  30 * time.Second, // a cancel test that needs it has failed
		StopGrace:    time.Second,
	})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: fx.Meta["cwd"]}, d.client())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		d.run(s, st)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("adapter Close: %v", err)
	}
	compareWant(t, fx, rec.format(t))
}

// storeSection returns a fresh CLI config dir. A case's "store" section,
// if any, is put there as the session's transcript, as the CLI would have
// written it, dated storeTime.
func storeSection(t *testing.T, fx *recording.Fixture) string {
	dir := t.TempDir()
	data, ok := fx.File.Section("store")
	if !ok {
		return dir
	}
	p := filepath.Join(dir, "projects", transcripts.ProjectDir(fx.Meta["cwd"]), testSessionID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, storeTime, storeTime); err != nil {
		t.Fatal(err)
	}
	return dir
}

// storeTime is the modification time of a case's stored transcript.
var storeTime = time.Date(2026, 11, 21, 7, 22, 37, 0, time.UTC)

// driver plays the editor of a transcript test.
type driver struct {
	t    *testing.T
	rec  *transcript
	caps acp.ClientCapabilities
	// schema, if set, checks every update the adapter sends.
	schema *acptest.Validator
	// elicit, if set, answers elicitation/create.
	elicit func(context.Context, acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error)

	mu         sync.Mutex
	answers    []string           // guarded by mu
	cancelOn   string             // guarded by mu
	cancel     context.CancelFunc // guarded by mu
	sawUpdates map[string]bool    // guarded by mu
}

// cancelPrompt cancels the running prompt.
func (d *driver) cancelPrompt() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		d.cancel()
	}
}

func (d *driver) client() *acptest.Client {
	return &acptest.Client{
		Update: func(_ context.Context, n acp.SessionNotification) error {
			if n.SessionID != testSessionID {
				d.t.Errorf("update for session %q", n.SessionID)
			}
			d.rec.add("update", n.Update)
			if d.schema != nil {
				d.checkSchema(n)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if k := n.Update.Kind(); k == d.cancelOn && !d.sawUpdates[k] {
				d.sawUpdates[k] = true
				d.cancel()
			}
			return nil
		},
		Permission: d.permission,
		Elicit:     d.elicit,
		Caps:       d.caps,
	}
}

// checkSchema fails the test when n does not match the ACP schema.
func (d *driver) checkSchema(n acp.SessionNotification) {
	raw, err := json.Marshal(n)
	if err != nil {
		d.t.Errorf("encoding update: %v", err)
		return
	}
	if err := d.schema.Validate("SessionNotification", raw); err != nil {
		d.t.Errorf("update %s does not match the ACP schema: %v", raw, err)
	}
}

func (d *driver) permission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	d.rec.add("requestPermission", req)
	d.mu.Lock()
	if d.cancelOn == "permission" {
		d.cancel()
		d.mu.Unlock()
		<-ctx.Done()
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
	}
	if d.cancelOn == "hold" {
		d.mu.Unlock()
		<-ctx.Done()
		return acp.RequestPermissionResponse{Outcome: acp.PermissionCancelled()}, nil
	}
	choice := "allow_once"
	if len(d.answers) > 0 {
		choice, d.answers = d.answers[0], d.answers[1:]
	}
	d.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: acp.PermissionSelected(acp.PermissionOptionID(choice))}, nil
}

// trace records every line the adapter writes to the CLI.
func (d *driver) trace(toAgent bool, line []byte) {
	if toAgent {
		d.rec.add("stdin", json.RawMessage(bytes.Clone(line)))
	}
}

func (d *driver) run(s acp.Session, st editorStep) {
	ctx := d.t.Context()
	switch {
	case st.SetMode != "":
		err := s.SetMode(ctx, acp.SessionModeID(st.SetMode))
		if err != nil {
			d.rec.addError(err)
		}
	case st.SetModel != "":
		_, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{
			SessionID: s.ID(), ConfigID: configModel,
			Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID(st.SetModel))},
		})
		if err != nil {
			d.rec.addError(err)
		}
	case st.SetEffort != "":
		opts, err := s.SetConfigOption(ctx, acp.SetSessionConfigOptionRequest{
			SessionID: s.ID(), ConfigID: configEffort,
			Value: acp.ConfigOptionValue{ID: acp.Ptr(acp.SessionConfigValueID(st.SetEffort))},
		})
		if err != nil {
			d.rec.addError(err)
		} else {
			d.rec.add("configOptions", opts)
		}
	default:
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		d.mu.Lock()
		d.answers, d.cancelOn, d.cancel = st.Permissions, st.Cancel, cancel
		d.sawUpdates = map[string]bool{}
		d.mu.Unlock()
		stop, err := s.Prompt(pctx, acp.PromptRequest{SessionID: s.ID(), Prompt: promptBlocks(d.t, st.Prompt)})
		d.rec.addResult(stop, err)
	}
}

func promptBlocks(t *testing.T, raw json.RawMessage) []acp.ContentBlock {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []acp.ContentBlock{acp.TextBlock(text)}
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	var out []acp.ContentBlock
	for _, b := range blocks {
		var cb acp.ContentBlock
		if err := json.Unmarshal(b, &cb); err != nil {
			t.Fatalf("prompt block %s: %v", b, err)
		}
		out = append(out, cb)
	}
	return out
}

// compareWant checks got against the want section, or rewrites it.
func compareWant(t *testing.T, fx *recording.Fixture, got []byte) {
	t.Helper()
	if *update {
		fx.File.SetSection(recording.SectionWant, got)
		if err := fx.Save(); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := fx.File.Section(recording.SectionWant)
	if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(got)) {
		t.Errorf("transcript differs from %s (-update rewrites it)\n--- want\n%s\n--- got\n%s", fx.Path, want, got)
	}
}
