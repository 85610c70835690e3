package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/internal/recording"
)

const (
	scenarioDir = "../../../fixtures/scenarios/claude"
	fixtureDir  = "../../../fixtures/claude"
)

// TestScenariosAndFixtures checks every scenario file and the fixture
// recorded from it: both parse, the meta matches, the script is a real
// session, and no machine path leaked into it.
func TestScenariosAndFixtures(t *testing.T) {
	names, err := scenarioFiles(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 10 {
		t.Fatalf("only %d scenarios: %v", len(names), names)
	}
	tmp := os.TempDir()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			rec, err := loadRecording(filepath.Join(scenarioDir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(rec.Comment) == "" || len(rec.Model.Turns) == 0 {
				t.Errorf("scenario has no comment or no turns")
			}
			fx, err := recording.Load(filepath.Join(fixtureDir, name+".txtar"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(fx.File.Comment, strings.TrimSpace(rec.Comment)) {
				t.Errorf("fixture comment does not start with the scenario comment")
			}
			want := map[string]string{"adapter": "claude", "session": sessionID(name), "cwd": placeProject}
			for k, v := range want {
				if fx.Meta[k] != v {
					t.Errorf("meta %s = %q, want %q", k, fx.Meta[k], v)
				}
			}
			if !strings.HasPrefix(fx.Meta["cli"], "claude 2.") {
				t.Errorf("meta cli = %q", fx.Meta["cli"])
			}
			if len(fx.Script) < 5 || fx.Script[0].Dir != recording.ToAgent || !bytes.Contains(fx.Script[0].Line, []byte(`"initialize"`)) {
				t.Fatalf("script does not start with initialize (%d steps)", len(fx.Script))
			}
			results := 0
			for i, st := range fx.Script {
				if bytes.Contains(st.Line, []byte("acpbridge-record-")) || (tmp != "/tmp" && bytes.Contains(st.Line, []byte(tmp))) {
					t.Errorf("step %d leaks a temp path: %.200s", i+1, st.Line)
				}
				// A turn the CLI runs by itself when a background task ends
				// (origin task-notification) answers no prompt.
				if bytes.Contains(st.Line, []byte(`"type":"result"`)) && st.Dir == recording.FromAgent &&
					!bytes.Contains(st.Line, []byte(`"origin":{"kind":"task-notification"`)) {
					results++
				}
			}
			// One result per prompt, and one more per steering message:
			// the reply it aborts gets a result of its own.
			prompts := 0
			for _, a := range rec.Host {
				if a.Do == doPrompt || a.Do == doSteer {
					prompts++
				}
			}
			if results != prompts {
				t.Errorf("%d results for %d prompts and steering messages", results, prompts)
			}
		})
	}
}

// TestRecordReproducible records one scenario with the real CLI and checks
// that the result equals the committed fixture byte for byte. It needs the
// CLI (claudeenv.Require: $CLAUDE_BIN, else the one make claude-cli
// installs).
func TestRecordReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real CLI")
	}
	bin := claudeenv.Require(t)
	cfg := &config{claude: bin, scenarios: scenarioDir, timeout: time.Minute, settle: 400 * time.Millisecond, verbose: testing.Verbose(),
		transcripts: t.TempDir()}
	if err := cfg.findCLI(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"text", "bash_allow", "ask_question"} {
		out := filepath.Join(t.TempDir(), name+".txtar")
		if err := record(t.Context(), cfg, name, out); err != nil {
			t.Fatal(err)
		}
		got, err := recording.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := recording.Load(filepath.Join(fixtureDir, name+".txtar"))
		if err != nil {
			t.Fatal(err)
		}
		// Other sections (editor, want) belong to other tests.
		for _, sec := range []string{recording.SectionMeta, recording.SectionAgent} {
			g, _ := got.File.Section(sec)
			w, _ := want.File.Section(sec)
			if !bytes.Equal(g, w) {
				t.Errorf("%s: re-recorded %s section differs from the committed fixture (CLI %s); re-record with go run ./cmd/dev/record -all",
					name, sec, cfg.version)
			}
		}
		if got.File.Comment != want.File.Comment {
			t.Errorf("%s: comment differs", name)
		}
		gotT, err := os.ReadFile(filepath.Join(cfg.transcripts, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		wantT, err := os.ReadFile(filepath.Join(transcriptDir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := transcriptDiff(gotT, wantT); diff != "" {
			t.Errorf("%s: re-recorded session transcript differs from the committed one; re-record with -transcripts %s\n%s",
				name, "fixtures/claude/transcripts", diff)
		}
	}
}

// transcriptDiff compares two recorded transcripts and describes the first
// difference, or returns "" if they match: the conversation entries (lines
// with a uuid) in order, the bookkeeping lines as a set (the CLI writes some
// of them from timers, so where they fall and how often a line repeats
// vary, and so does the leaf a last-prompt line points at, which is
// dropped).
func transcriptDiff(got, want []byte) string {
	split := func(data []byte) (conv, other []string) {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if isEntry([]byte(l)) {
				conv = append(conv, l)
			} else {
				other = append(other, withoutLeaf(l))
			}
		}
		slices.Sort(other)
		return conv, slices.Compact(other)
	}
	gc, gb := split(got)
	wc, wb := split(want)
	if d := firstDiff("entry", gc, wc); d != "" {
		return d
	}
	return firstDiff("bookkeeping line", gb, wb)
}

// firstDiff describes the first place where two lists of lines differ.
func firstDiff(what string, got, want []string) string {
	for i := range max(len(got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			// Show the lines from a little before where they part.
			at := 0
			for at < min(len(g), len(w)) && g[at] == w[at] {
				at++
			}
			from := max(0, at-120)
			return fmt.Sprintf("%s %d (of %d, want %d), from byte %d:\ngot  %.400s\nwant %.400s",
				what, i+1, len(got), len(want), from, g[min(from, len(g)):], w[min(from, len(w)):])
		}
	}
	return ""
}

// withoutLeaf drops the leafUuid member of a bookkeeping line.
func withoutLeaf(line string) string {
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return line
	}
	if _, ok := m["leafUuid"]; !ok {
		return line
	}
	delete(m, "leafUuid")
	b, _ := json.Marshal(m)
	return string(b)
}
