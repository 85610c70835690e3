package pty

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// editorScript is a recording's editor section: its turns and the
// permission answers, in order.
type editorScript struct {
	turns   []editorTurn
	answers []acp.RequestPermissionResponse
}

type editorTurn struct {
	req    acp.PromptRequest
	cancel bool
}

func readEditor(t testing.TB, msgs []json.RawMessage) editorScript {
	t.Helper()
	var es editorScript
	for _, m := range msgs {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Fatalf("editor message %s: %v", m, err)
		}
		switch {
		case msg.Method == acp.MethodSessionPrompt:
			var req acp.PromptRequest
			if err := json.Unmarshal(msg.Params, &req); err != nil {
				t.Fatalf("editor prompt %s: %v", m, err)
			}
			es.turns = append(es.turns, editorTurn{req: req})
		case msg.Method == acp.MethodSessionCancel && len(es.turns) > 0:
			es.turns[len(es.turns)-1].cancel = true
		case msg.Result != nil:
			var resp acp.RequestPermissionResponse
			if err := json.Unmarshal(msg.Result, &resp); err != nil {
				t.Fatalf("editor answer %s: %v", m, err)
			}
			es.answers = append(es.answers, resp)
		default:
			t.Fatalf("editor message %s: not a prompt, cancel or permission answer", m)
		}
	}
	return es
}

// replayRecording plays the recording at path through the engine as its
// editor section says (a turn marked cancelled is cancelled when the player
// waits for the interrupt, where the recorded one was), records the replay,
// and returns both recordings.
func replayRecording(t testing.TB, path string, o ReplayOptions) (orig, replayed *recording.Fixture) {
	t.Helper()
	orig, err := recording.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	es := readEditor(t, orig.Editor)
	var mu sync.Mutex
	var cancelTurn context.CancelFunc // guarded by mu
	p, err := FindProfile(orig.Meta["profile"], "")
	if src, ok := orig.File.Section(recording.SectionProfile); ok {
		p, err = ParseProfile(path+" (profile)", src)
		o.Profile = p
	}
	if err != nil {
		t.Fatal(err)
	}
	interrupt := p.Interrupt.Bytes("")
	o.waiting = func(want []byte) {
		if bytes.Equal(want, interrupt) {
			mu.Lock()
			if cancelTurn != nil {
				cancelTurn()
			}
			mu.Unlock()
		}
	}
	a, err := Replay(orig.Meta, func() (recording.StepReader, error) { return recording.SliceSteps(orig.Script), nil }, o)
	if err != nil {
		t.Fatal(err)
	}
	a.opts.Logger = zerolog.New(zerolog.NewTestWriter(t))
	out := filepath.Join(t.TempDir(), "replayed.txtar")
	a.opts.Record = NewRecorder(out, "")
	answers := es.answers
	c := newClient(func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
		if len(answers) == 0 {
			t.Errorf("a permission request the recording did not answer")
			return acp.PermissionCancelled()
		}
		a := answers[0]
		answers = answers[1:]
		return a.Outcome
	})
	s, err := a.NewSession(context.Background(), acp.NewSessionRequest{Cwd: t.TempDir()}, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range es.turns {
		ctx, cancel := context.WithTimeout(context.Background(), 30e9)
		if tu.cancel {
			mu.Lock()
			cancelTurn = cancel
			mu.Unlock()
		}
		_, _ = s.Prompt(ctx, tu.req) // what it returned is compared below
		mu.Lock()
		cancelTurn = nil
		mu.Unlock()
		cancel()
	}
	if err := s.Close(); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("closing the adapter: %v", err)
	}
	replayed, err = recording.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return orig, replayed
}

// wantFrames decodes a recording's want section.
func wantFrames(t testing.TB, fx *recording.Fixture) []map[string]any {
	t.Helper()
	data, _ := fx.File.Section(recording.SectionWant)
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []map[string]any
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s: want section: %v", fx.Path, err)
		}
		out = append(out, m)
	}
	return out
}

// chunkText is the text of an agent_message_chunk frame, or false.
func chunkText(m map[string]any) (string, bool) {
	params, _ := m["params"].(map[string]any)
	update, _ := params["update"].(map[string]any)
	content, _ := update["content"].(map[string]any)
	text, ok := content["text"].(string)
	return text, ok && update["sessionUpdate"] == "agent_message_chunk"
}

func stopReason(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	s, _ := res["stopReason"].(string)
	return s
}

// typed is everything the bridge typed in a recording.
func typed(t testing.TB, fx *recording.Fixture) []byte {
	t.Helper()
	var b []byte
	for _, s := range fx.Script {
		if s.Dir != recording.ToAgent {
			continue
		}
		st, err := decodeStep(s)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, st.data...)
	}
	return b
}

// turnFrames is one turn of a want section: its tool calls and permission
// requests, the reply text before each of them and after the last (texts
// has one more element than calls), and its answer. How a text is cut into
// chunks depends on when the screen was looked at; the text does not.
type turnFrames struct {
	calls  []map[string]any
	texts  []string
	result map[string]any
}

func turnsOf(frames []map[string]any) []turnFrames {
	var out []turnFrames
	cur := turnFrames{texts: []string{""}}
	for _, f := range frames {
		if text, ok := chunkText(f); ok {
			cur.texts[len(cur.texts)-1] += text
			continue
		}
		if _, ok := f["id"]; !ok || f["method"] == acp.MethodSessionRequestPermission {
			cur.calls = append(cur.calls, f)
			cur.texts = append(cur.texts, "")
			continue
		}
		cur.result = f
		out = append(out, cur)
		cur = turnFrames{texts: []string{""}}
	}
	return out
}

// compareReplay checks that the replay answered the editor as the recorded
// session did: the same tool calls and permission requests, the same reply
// text before and after each, the same stop reasons; and that the bridge
// typed the same keys. The text of a cancelled turn depends on when the
// cancel came: one text must start the other.
func compareReplay(t testing.TB, orig, replayed *recording.Fixture) {
	t.Helper()
	want, got := turnsOf(wantFrames(t, orig)), turnsOf(wantFrames(t, replayed))
	if len(got) != len(want) {
		t.Fatalf("the replay answered %d turns, the recording %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if !reflect.DeepEqual(g.result, w.result) || !reflect.DeepEqual(g.calls, w.calls) || len(g.texts) != len(w.texts) {
			t.Errorf("turn %d:\ngot  %v %v\nwant %v %v", i+1, g.calls, g.result, w.calls, w.result)
			continue
		}
		cancelled := stopReason(w.result) == string(acp.StopReasonCancelled)
		for j := range w.texts {
			gt, wt := g.texts[j], w.texts[j]
			if gt != wt && !(cancelled && (strings.HasPrefix(wt, gt) || strings.HasPrefix(gt, wt))) {
				t.Errorf("turn %d, text %d: reply %q, want %q", i+1, j+1, gt, wt)
			}
		}
	}
	if g, w := typed(t, replayed), typed(t, orig); !bytes.Equal(g, w) {
		t.Errorf("the replay typed %q, the recording %q", g, w)
	}
}

var updateWant = flag.Bool("update", false, "rewrite the want sections of the recordings in fixtures/pty from their replay")

// Every recording in fixtures/pty replays through the engine: the player
// acts as the agent (without the recorded delays), and the bridge answers
// the editor as it did when the recording was made. With -update the want
// sections are rewritten from the replay instead (a recording of a real
// TUI cannot be made again without it).
func TestReplayRecordings(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join(recordDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings in %s (%v)", recordDir, err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			t.Parallel()
			orig, replayed := replayRecording(t, path, ReplayOptions{NoDelay: true})
			if *updateWant {
				want, _ := replayed.File.Section(recording.SectionWant)
				orig.File.SetSection(recording.SectionWant, want)
				if err := orig.Save(); err != nil {
					t.Fatal(err)
				}
				return
			}
			compareReplay(t, orig, replayed)
		})
	}
}

// At the recorded pace (here 4 times faster) the replay answers the same.
func TestReplayPaced(t *testing.T) {
	t.Parallel()
	orig, replayed := replayRecording(t, filepath.Join(recordDir, "spinner.txtar"), ReplayOptions{Speed: 4})
	compareReplay(t, orig, replayed)
}

// An editor that answers a dialog otherwise than the recording gets a turn
// that fails saying so, instead of a turn that hangs or plays what followed
// the recorded answer.
func TestReplayDiverges(t *testing.T) {
	t.Parallel()
	fx, err := recording.Load(filepath.Join(recordDir, "dialog_yn.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Replay(fx.Meta, func() (recording.StepReader, error) { return recording.SliceSteps(fx.Script), nil },
		ReplayOptions{NoDelay: true, Diverge: 100e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, newClient(choose("No")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = prompt(t, deadline(t), s, "please run it")
	if err == nil || !strings.Contains(err.Error(), `[replay] the bridge typed "n" where the recording has "y"`) {
		t.Fatalf("Prompt error = %v; want the divergence on the screen", err)
	}
}

// A prompt other than the recorded one fails the turn saying so, rather
// than answering with what the recording has next (an empty reply, or the
// raw screen of a start-up dialog).
func TestReplayOtherPromptFails(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"spinner", "dialog_yn", "gemini"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fx, err := recording.Load(filepath.Join(recordDir, name+".txtar"))
			if err != nil {
				t.Fatal(err)
			}
			a, err := Replay(fx.Meta, func() (recording.StepReader, error) { return recording.SliceSteps(fx.Script), nil },
				ReplayOptions{NoDelay: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			s, err := a.NewSession(t.Context(), acp.NewSessionRequest{Cwd: t.TempDir()}, newClient(choose("Trust folder")))
			if err != nil {
				t.Fatal(err)
			}
			stop, err := prompt(t, deadline(t), s, "something else entirely")
			if err == nil || !strings.Contains(err.Error(), "the prompt differs from the recorded one") ||
				!strings.Contains(err.Error(), "something else entirely") {
				t.Fatalf("Prompt = %q, %v; want the turn failed saying the prompt differs", stop, err)
			}
		})
	}
}

func TestReplayRejectsOtherRecordings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		meta map[string]string
		want string
	}{
		{"claude", map[string]string{"adapter": "claude"}, `not a PTY recording: meta says adapter "claude"`},
		{"no profile", map[string]string{"adapter": "pty", "cols": "80", "rows": "24"}, `profile "" is not a built-in one`},
		{"size", map[string]string{"adapter": "pty", "profile": "faketui", "cols": "x", "rows": "24"}, `terminal size is "x" x "24"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replay(tt.meta, nil, ReplayOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Replay = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
