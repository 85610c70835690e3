package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/internal/proc"
	"github.com/acpbridge/acpbridge/adapters/replay/streamplayer"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// recordedDir holds the recordings of the real CLI.
const (
	recordedDir = "../../fixtures/claude"
	// scenarioDir holds the scenarios the recordings were made from.
	scenarioDir = "../../fixtures/scenarios/claude"
)

// TestRecordedFixtures replays every recording of the real CLI through the
// adapter, acting as the editor the recording implies (its prompts, its
// permission answers, its interrupts and mode changes). What the adapter
// gives its client (updates, permission requests, how each call ended) must
// be what the recording's own want section shows the bridge sending the
// editor, so the recording is the one golden for that side. What the
// adapter writes to the CLI is compared with testdata/recorded/NAME.stdin
// (-update rewrites it): the recording's "<" lines are the recorder's
// writes, not the adapter's, so they cannot pin them.
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
		fx, err := recording.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(fx.Editor) == 0 {
			// As for the goldens: a recording without an editor side
			// (steer: a message written into a running turn, which this
			// driver does not send) is played by tests of its own
			// (cmd/acpbridge's TestReplaySteering).
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, stdin := playRecording(t, fx)
			compareItems(t, wantTranscript(t, fx), got)
			compareFile(t, filepath.Join("testdata", "recorded", name+".stdin"), stdin)
		})
	}
}

// wantTranscript derives from a recording's want section (the frames the
// bridge writes to the editor when it replays the recording) what the
// adapter must have given its client, as transcript items: the update of
// every session/update, every session/request_permission (for the test's
// session id), and how each prompt, and each mode or model change that
// failed, ended.
func wantTranscript(t *testing.T, fx *recording.Fixture) []map[string]any {
	t.Helper()
	data, ok := fx.File.Section("want")
	if !ok {
		t.Fatalf("%s: no want section", fx.Path)
	}
	calls := map[string]string{} // editor request id -> method
	for _, raw := range fx.Editor {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: editor: %v", fx.Path, err)
		}
		if m.Method != "" && m.ID != nil {
			calls[string(m.ID)] = m.Method
		}
	}
	var items []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var f struct {
			ID     json.RawMessage            `json:"id"`
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
			Result map[string]json.RawMessage `json:"result"`
			Error  json.RawMessage            `json:"error"`
		}
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: want: %v", fx.Path, err)
		}
		switch {
		case f.Method == acp.MethodSessionUpdate:
			items = append(items, map[string]any{"update": f.Params["update"]})
		case f.Method == acp.MethodSessionRequestPermission:
			f.Params["sessionId"] = json.RawMessage(strconv.Quote(testSessionID))
			items = append(items, map[string]any{"requestPermission": f.Params})
		case f.Method == acp.MethodElicitationCreate:
			f.Params["sessionId"] = json.RawMessage(strconv.Quote(testSessionID))
			items = append(items, map[string]any{"createElicitation": f.Params})
		case f.Method != "":
			t.Fatalf("%s: want: bridge request %s has no counterpart in this test", fx.Path, f.Method)
		case f.Error != nil:
			switch calls[string(f.ID)] {
			case acp.MethodSessionPrompt, acp.MethodSessionSetMode, acp.MethodSessionSetConfigOption:
				items = append(items, map[string]any{"error": f.Error})
			}
		case calls[string(f.ID)] == acp.MethodSessionPrompt:
			items = append(items, map[string]any{"stopReason": f.Result["stopReason"]})
		}
	}
	return items
}

// compareItems checks the adapter's transcript against the one derived from
// the recording, item by item, as JSON values.
func compareItems(t *testing.T, want, got []map[string]any) {
	t.Helper()
	norm := func(items []map[string]any) []any {
		var out []any
		for _, it := range items {
			raw, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	w, g := norm(want), norm(got)
	for i := range max(len(w), len(g)) {
		var wi, gi any
		if i < len(w) {
			wi = w[i]
		}
		if i < len(g) {
			gi = g[i]
		}
		if !reflect.DeepEqual(wi, gi) {
			wj, _ := json.MarshalIndent(wi, "", "  ")
			gj, _ := json.MarshalIndent(gi, "", "  ")
			t.Fatalf("item %d of %d (want %d) differs from the recording's want section\n--- want\n%s\n--- got\n%s",
				i+1, len(g), len(w), wj, gj)
		}
	}
}

// recordedStep is an editor action implied by a recording, with the number
// of lines the CLI had written when the host acted (for interrupts).
type recordedStep struct {
	editorStep
	afterLines int
}

// editorSteps derives the editor's actions from the host side of a script.
// An editor that can elicit answers AskUserQuestion with a form, not with
// one permission question per question.
func editorSteps(t *testing.T, script []recording.Step, elicit bool) []recordedStep {
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
					if !elicit {
						steps[cur].Permissions = append(steps[cur].Permissions, answerChoices(req.Get("input"), resp)...)
					}
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

// playRecording runs one recording and returns the transcript of what the
// adapter gave its client, and the lines it wrote to the CLI, one a line.
func playRecording(t *testing.T, fx *recording.Fixture) ([]map[string]any, []byte) {
	ed := recordedEditor(t, fx)
	steps := editorSteps(t, fx.Script, ed.caps.Elicitation != nil)
	rec := &transcript{}
	d := &driver{t: t, rec: rec, schema: acptest.Load(t), caps: ed.caps}
	d.elicit = func(_ context.Context, r acp.CreateElicitationRequest) (acp.CreateElicitationResponse, error) {
		rec.add("createElicitation", r)
		return ed.elicitation(t), nil
	}
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
	defer mu.Unlock()
	var written bytes.Buffer
	for _, l := range stdin {
		written.Write(bytes.TrimSpace(l))
		written.WriteByte('\n')
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.items, written.Bytes()
}

// editorSide is what a recording's editor section says of its editor.
type editorSide struct {
	caps acp.ClientCapabilities

	mu      sync.Mutex
	answers []acp.CreateElicitationResponse // guarded by mu; in order
}

// recordedEditor reads the capabilities the recording's editor declared
// and its answers to the bridge's elicitation/create requests, so the
// adapter sees the editor the want section was written for.
func recordedEditor(t *testing.T, fx *recording.Fixture) *editorSide {
	t.Helper()
	ed := &editorSide{}
	want, _ := fx.File.Section("want")
	asked := map[string]bool{} // ids of the bridge's elicitation/create requests
	dec := json.NewDecoder(bytes.NewReader(want))
	for dec.More() {
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: want: %v", fx.Path, err)
		}
		if f.Method == acp.MethodElicitationCreate {
			asked[string(f.ID)] = true
		}
	}
	for _, raw := range fx.Editor {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Caps acp.ClientCapabilities `json:"clientCapabilities"`
			} `json:"params"`
			Result *acp.CreateElicitationResponse `json:"result"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: editor: %v", fx.Path, err)
		}
		switch {
		case m.Method == acp.MethodInitialize:
			ed.caps = m.Params.Caps
		case m.Method == "" && m.Result != nil && asked[string(m.ID)]:
			ed.answers = append(ed.answers, *m.Result)
		}
	}
	return ed
}

// elicitation returns the editor's next recorded answer to elicitation/create.
func (ed *editorSide) elicitation(t *testing.T) acp.CreateElicitationResponse {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.answers) == 0 {
		t.Error("elicitation/create the recorded editor did not answer")
		return acp.CreateElicitationResponse{Action: acp.ElicitationCancel}
	}
	a := ed.answers[0]
	ed.answers = ed.answers[1:]
	return a
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
