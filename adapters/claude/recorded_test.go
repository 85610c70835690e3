package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/replay/recording"
	"github.com/acpbridge/acpbridge/adapters/replay/streamplayer"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// recordedDir holds the recordings of the real CLI.
const (
	recordedDir = "../../fixtures/claude"
	// scenarioDir holds the scenarios the recordings were made from.
	scenarioDir = "../../fixtures/scenarios/claude"
)

// TestRecordedFixtures replays every recording of the real CLI through the
// adapter, acting as the editor the recording implies (its prompts, its
// permission answers, its interrupts and mode changes), and compares the
// adapter's updates with testdata/recorded/NAME.want (-update rewrites it).
func TestRecordedFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(recordedDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no recordings in " + recordedDir)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fx, err := recording.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			got := playRecording(t, fx)
			compareFile(t, filepath.Join("testdata", "recorded", name+".want"), got)
		})
	}
}

// recordedStep is an editor action implied by a recording, with the number
// of lines the CLI had written when the host acted (for interrupts).
type recordedStep struct {
	editorStep
	afterLines int
}

// editorSteps derives the editor's actions from the host side of a script.
func editorSteps(t *testing.T, script []recording.Step) []recordedStep {
	var steps []recordedStep
	written := 0
	cur := -1                          // index of the current prompt step
	tools := map[string]gjson.Result{} // can_use_tool request id -> request
	for _, st := range script {
		if st.Dir == recording.FromAgent {
			written++
			if r := gjson.GetBytes(st.Line, "request"); r.Get("subtype").String() == "can_use_tool" {
				tools[gjson.GetBytes(st.Line, "request_id").String()] = r
			}
			continue
		}
		line := gjson.ParseBytes(st.Line)
		switch line.Get("type").String() {
		case "user":
			steps = append(steps, recordedStep{editorStep: editorStep{Prompt: promptJSON(t, line.Get("message.content"))}})
			cur = len(steps) - 1
		case "control_response":
			if cur >= 0 {
				req, resp := tools[line.Get("response.request_id").String()], line.Get("response.response")
				if req.Get("tool_name").String() == "AskUserQuestion" && resp.Get("behavior").String() == "allow" {
					steps[cur].Permissions = append(steps[cur].Permissions, answerChoices(req.Get("input"), resp)...)
					continue
				}
				steps[cur].Permissions = append(steps[cur].Permissions, permissionChoice(req.Get("tool_name").String(), resp))
			}
		case "control_request":
			switch req := line.Get("request"); req.Get("subtype").String() {
			case "interrupt":
				if cur >= 0 {
					steps[cur].Cancel, steps[cur].afterLines = "lines", written
				}
			case "set_permission_mode":
				steps = append(steps, recordedStep{editorStep: editorStep{SetMode: req.Get("mode").String()}})
			case "set_model":
				steps = append(steps, recordedStep{editorStep: editorStep{SetModel: req.Get("model").String()}})
			}
		}
	}
	return steps
}

// permissionChoice is the option the recorded answer corresponds to.
func permissionChoice(tool string, r gjson.Result) string {
	switch {
	case r.Get("behavior").String() != "allow":
		if tool == "ExitPlanMode" {
			return "plan"
		}
		return optRejectOnce
	case tool == "ExitPlanMode":
		return orDefault(r.Get(`updatedPermissions.#(type=="setMode").mode`).String(), "default")
	case r.Get("updatedPermissions").Exists():
		return optAllowAlways
	}
	return optAllowOnce
}

// answerChoices are the options the editor picks, one permission question
// per question, to give the recorded answers to AskUserQuestion.
func answerChoices(input, resp gjson.Result) []string {
	var ids []string
	for _, q := range input.Get("questions").Array() {
		label := resp.Get("updatedInput.answers." + gjsonKey(q.Get("question").String())).String()
		for i, o := range q.Get("options").Array() {
			if o.Get("label").String() == label {
				ids = append(ids, "answer_"+strconv.Itoa(i))
				break
			}
		}
	}
	return ids
}

// gjsonKey escapes a map key for a gjson path.
func gjsonKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// promptJSON turns a recorded user message content back into ACP blocks.
func promptJSON(t *testing.T, content gjson.Result) json.RawMessage {
	var blocks []acp.ContentBlock
	if content.Type == gjson.String {
		blocks = append(blocks, acp.TextBlock(content.String()))
	}
	for _, b := range content.Array() {
		switch b.Get("type").String() {
		case "text":
			blocks = append(blocks, acp.TextBlock(b.Get("text").String()))
		case "image":
			blocks = append(blocks, acp.ContentBlock{Image: &acp.ImageContent{
				Data: b.Get("source.data").String(), MimeType: b.Get("source.media_type").String()}})
		}
	}
	raw, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// playRecording runs one recording and returns the transcript.
func playRecording(t *testing.T, fx *recording.Fixture) []byte {
	steps := editorSteps(t, fx.Script)
	rec := &transcript{}
	d := &driver{t: t, rec: rec, schema: acptest.Load(t)}
	var stdin [][]byte
	var mu sync.Mutex
	lines := &lineCounter{}
	a := New(Options{
		Launch: func(context.Context, proc.Spec) (proc.Process, error) {
			return proc.InProcess("claude", func(ctx context.Context, in io.Reader, out io.Writer) error {
				lines.w = out
				return streamplayer.Run(ctx, fx.Script, in, lines, streamplayer.Options{
					SessionID: testSessionID, RecordedSessionID: fx.Meta["session"]})
			}), nil
		},
		NewSessionID: func() string { return testSessionID },
		Logger:       testLogger(t),
		// The interleaving of stdin lines with updates depends on timing,
		// so they are listed apart, in order.
		Trace: func(toAgent bool, line []byte) {
			if toAgent {
				mu.Lock()
				stdin = append(stdin, bytes.Clone(line))
				mu.Unlock()
			}
		},
		CancelGrace: 30 * time.Second,
		StopGrace:   time.Second,
	})
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: fx.Meta["cwd"]}, d.client())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.Cancel == "lines" {
			lines.at(st.afterLines, func() { d.cancelPrompt() })
		}
		d.run(s, st.editorStep)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	mu.Lock()
	for _, l := range stdin {
		rec.add("stdin", json.RawMessage(l))
	}
	mu.Unlock()
	return rec.format(t)
}

// lineCounter passes the fake agent's output through and runs a hook once
// a given number of lines has been written.
type lineCounter struct {
	w io.Writer

	mu   sync.Mutex
	n    int
	want int
	hook func()
}

func (l *lineCounter) at(n int, hook func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want, l.hook = n, hook
}

func (l *lineCounter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.mu.Lock()
	l.n += bytes.Count(p[:n], []byte("\n"))
	var hook func()
	if l.hook != nil && l.n >= l.want {
		hook, l.hook = l.hook, nil
	}
	l.mu.Unlock()
	if hook != nil {
		hook()
	}
	return n, err
}

// compareFile checks got against a golden file, or rewrites it.
func compareFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("transcript differs from %s (-update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
