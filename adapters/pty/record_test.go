package pty

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

var recordFlag = flag.Bool("record", false, "rewrite the recordings in fixtures/pty from the fake TUI")

// recordDir is where the recordings of the fake TUI live.
const recordDir = "../../fixtures/pty"

// scenario is a session with the fake TUI to record.
type scenario struct {
	name, comment string
	args          []string
	turns         []scenarioTurn
}

type scenarioTurn struct {
	prompt string
	answer string // the option chosen in a dialog
	cancel bool   // cancel once the reply streams
}

var scenarios = []scenario{
	{name: "text", comment: "A text turn: the reply streams word by word under a spinner, then the idle\nscreen and a BEL end the turn.",
		turns: []scenarioTurn{{prompt: "hello there"}, {prompt: "and a second turn"}}},
	{name: "spinner", comment: "A slow reply: the spinner line is redrawn between words (chrome, never\nreply text) while the words stream in colour.",
		args: []string{"-word-delay", "15ms"}, turns: []scenarioTurn{{prompt: "tell me slowly"}}},
	{name: "dialog_yn", comment: "A Y/N permission dialog, allowed: the dialog's options become a\nsession/request_permission, the answer is typed as \"y\".",
		turns: []scenarioTurn{{prompt: "please run it", answer: "Yes"}}},
	{name: "dialog_numbered", comment: "A numbered dialog whose options are read from the screen, rejected with\nits third option.",
		turns: []scenarioTurn{{prompt: "edit the notes", answer: "No, tell the agent what to do"}}},
	{name: "trust_alt", comment: "A start-up trust dialog answered by the profile, on the alternate screen,\nthen a text turn.",
		args: []string{"-trust", "-alt"}, turns: []scenarioTurn{{prompt: "hello"}}},
	{name: "cancel", comment: "A turn cancelled while the reply streams: the profile's interrupt (Esc)\nis typed, the TUI comes back to idle, and a second turn works.",
		args: []string{"-word-delay", "5ms"}, turns: []scenarioTurn{{prompt: "a long story", cancel: true}, {prompt: "hello again"}}},
}

// recordScenario runs sc against the fake TUI with a Recorder writing to
// path.
func recordScenario(t *testing.T, sc scenario, path string) (cwd string) {
	t.Helper()
	p, err := FindProfile("faketui", "")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	comment := sc.comment + "\n\nRecorded from the fake TUI (fixtures/testsupport/faketui):\n\n\tgo test ./adapters/pty -run 'TestRecordFakeTUI/" + sc.name + "$' -record\n"
	a, err := New(p, Options{Command: append([]string{exe}, sc.args...), Name: "faketui",
		Env: []string{"ACPBRIDGE_FAKETUI=1"}, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		StopGrace: 500 * time.Millisecond, Record: NewRecorder(path, comment)})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(nil)
	cwd = t.TempDir()
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: cwd}, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range sc.turns {
		c.mu.Lock()
		c.answer, c.first, c.once = choose(tu.answer), make(chan struct{}), sync.Once{}
		c.mu.Unlock()
		ctx, cancel := context.WithCancel(deadline(t))
		if tu.cancel {
			first := c.first
			go func() {
				<-first
				cancel()
			}()
		}
		stop, err := prompt(t, ctx, s, tu.prompt)
		cancel()
		want := acp.StopReasonEndTurn
		if tu.cancel {
			want = acp.StopReasonCancelled
		}
		if err != nil || stop != want {
			t.Fatalf("Prompt(%q) = %q, %v; want %s", tu.prompt, stop, err, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("closing the adapter: %v", err)
	}
	return cwd
}

// The recorder writes a fixture of the session in the one fixture format:
// the terminal both ways in the agent section, the editor's prompts and
// answers, what the bridge answered, and nothing of this machine. With
// -record it rewrites fixtures/pty.
func TestRecordFakeTUI(t *testing.T) {
	requireUnix(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if !*recordFlag {
				t.Parallel()
			}
			dir := t.TempDir()
			if *recordFlag {
				dir = recordDir
			}
			path := filepath.Join(dir, sc.name+".txtar")
			cwd := recordScenario(t, sc, path)
			fx, err := recording.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range map[string]string{"adapter": "pty", "profile": "faketui", "cols": "200", "rows": "50"} {
				if fx.Meta[k] != v {
					t.Errorf("meta %s = %q, want %q", k, fx.Meta[k], v)
				}
			}
			// The recording carries its profile: it plays without the
			// profile's file.
			src, ok := fx.File.Section(recording.SectionProfile)
			if !ok {
				t.Error("the recording has no profile section")
			} else if p, err := ParseProfile("profile section", src); err != nil || p.Name != "faketui" {
				t.Errorf("its profile section reads as %v, %v; want the faketui profile", p, err)
			}
			var in, out int
			for _, s := range fx.Script {
				if _, err := decodeStep(s); err != nil {
					t.Fatal(err)
				}
				if s.Dir == recording.ToAgent {
					in++
				} else {
					out++
				}
			}
			if in < len(sc.turns) || out == 0 {
				t.Errorf("%d steps typed and %d drawn; want at least one typed per turn and some drawn", in, out)
			}
			if got := len(fx.Editor); got < len(sc.turns) {
				t.Errorf("editor section has %d messages, want at least the %d prompts", got, len(sc.turns))
			}
			data, _ := os.ReadFile(path)
			exe, _ := os.Executable()
			host, _ := os.Hostname()
			for _, machine := range []string{exe, cwd, host} {
				if len(machine) > 3 && strings.Contains(string(data), machine) {
					t.Errorf("the recording holds %q, a value of this machine", machine)
				}
			}
		})
	}
}
