package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const transcriptDir = "../../../fixtures/claude/transcripts"

func TestTranscriptPath(t *testing.T) {
	env := []string{"HOME=/h", "CLAUDE_CONFIG_DIR=/h/.claude"}
	if got := transcriptPath(env, "/r/project", "s1"); got != "/h/.claude/projects/-r-project/s1.jsonl" {
		t.Errorf("transcriptPath = %q", got)
	}
	env = append(env, "CLAUDE_CONFIG_DIR=/other")
	if got := transcriptPath(env, "/r/project", "s1"); got != "/other/projects/-r-project/s1.jsonl" {
		t.Errorf("transcriptPath with an overridden config dir = %q", got)
	}
	if got := transcriptPath([]string{"HOME=/h"}, "/r/p", "s1"); got != "/h/.claude/projects/-r-p/s1.jsonl" {
		t.Errorf("transcriptPath without a config dir = %q", got)
	}
}

func TestSaveTranscript(t *testing.T) {
	const session = "ffe0ee96-0929-44a0-86af-e1403171ced3"
	root := "/tmp/acpbridge-record-9"
	src := filepath.Join(t.TempDir(), "in.jsonl")
	in := strings.Join([]string{
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-21T07:15:57.876Z","sessionId":"` + session + `"}`,
		`{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"5249b2d5-7e9b-47bc-adf3-d3565994550a","cwd":"` + root + `/project","sessionId":"` + session + `"}`,
		`{"parentUuid":"5249b2d5-7e9b-47bc-adf3-d3565994550a","attachment":{"type":"prompt_snapshot","systemPrompt":["secret"],"tools":[{"name":"Bash"}]},"type":"attachment","uuid":"6249b2d5-7e9b-47bc-adf3-d3565994550a"}`,
		`{"type":"api-request","params":{"model":"m"},"requestDigest":"abc"}`,
		`{"type":"api-request-blob","body":"..."}`,
		`{"type":"cost-state","totalDuration":1481}`,
		``,
	}, "\n")
	if err := os.WriteFile(src, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "out", "x.jsonl")
	n := newNormalizer(session, root+"/project", root+"/home", root+"/tmp", root, "127.0.0.1:1", nil)
	if err := saveTranscript(n, src, dst); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"` + session + `"}`,
		`{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"00000000-0000-4000-8000-000000000001","cwd":"/home/user/project","sessionId":"` + session + `"}`,
		`{"parentUuid":"00000000-0000-4000-8000-000000000001","attachment":` + elidedSnapshot + `,"type":"attachment","uuid":"00000000-0000-4000-8000-000000000002"}`,
		``,
	}, "\n")
	if string(got) != want {
		t.Errorf("saved transcript:\n%s\nwant\n%s", got, want)
	}
	if err := saveTranscript(n, filepath.Join(t.TempDir(), "missing.jsonl"), dst); err == nil {
		t.Error("a missing transcript was not an error")
	}
}

// TestRecordedTranscripts checks the committed transcripts: each belongs to
// a scenario and its session, and nothing machine-specific or elided leaked.
func TestRecordedTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(transcriptDir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in %s: %v", transcriptDir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(scenarioDir, name+".json")); err != nil {
				t.Fatalf("no scenario for the transcript: %v", err)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 16<<20)
			users := 0
			for i := 1; sc.Scan(); i++ {
				var m struct {
					Type      string `json:"type"`
					SessionID string `json:"sessionId"`
					Cwd       string `json:"cwd"`
				}
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
				if m.SessionID != "" && m.SessionID != sessionID(name) {
					t.Errorf("line %d: session %s, want %s", i, m.SessionID, sessionID(name))
				}
				if m.Cwd != "" && m.Cwd != placeProject {
					t.Errorf("line %d: cwd %s", i, m.Cwd)
				}
				if droppedTranscriptType(m.Type) || bytes.Contains(sc.Bytes(), []byte("acpbridge-record-")) ||
					bytes.Contains(sc.Bytes(), []byte(`"systemPrompt"`)) {
					t.Errorf("line %d should not be in a recording: %.200s", i, sc.Bytes())
				}
				if m.Type == "user" {
					users++
				}
			}
			if users == 0 {
				t.Error("no user entry")
			}
		})
	}
}

func TestTranscriptDiff(t *testing.T) {
	a := `{"uuid":"1","x":1}
{"type":"last-prompt","leafUuid":"1"}
{"type":"atis-latch"}
{"uuid":"2","x":2}
`
	same := `{"uuid":"1","x":1}
{"type":"atis-latch"}
{"uuid":"2","x":2}
{"type":"last-prompt","leafUuid":"2"}
{"type":"atis-latch"}
`
	if d := transcriptDiff([]byte(a), []byte(same)); d != "" {
		t.Errorf("bookkeeping moved or re-pointed: %s", d)
	}
	for name, other := range map[string]string{
		"entries swapped":     "{\"uuid\":\"2\",\"x\":2}\n{\"uuid\":\"1\",\"x\":1}\n{\"type\":\"last-prompt\"}\n{\"type\":\"atis-latch\"}\n",
		"entry missing":       "{\"uuid\":\"1\",\"x\":1}\n{\"type\":\"last-prompt\"}\n{\"type\":\"atis-latch\"}\n",
		"bookkeeping differs": "{\"uuid\":\"1\",\"x\":1}\n{\"uuid\":\"2\",\"x\":2}\n{\"type\":\"last-prompt\"}\n{\"type\":\"atis-latch\",\"atis\":\"x\"}\n",
	} {
		if d := transcriptDiff([]byte(a), []byte(other)); d == "" {
			t.Errorf("%s: no difference reported", name)
		}
	}
}
