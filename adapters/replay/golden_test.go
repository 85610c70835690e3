package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/codex"
	"github.com/acpbridge/acpbridge/adapters/native"

	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

var update = flag.Bool("update", false, "rewrite the want sections of the JSON-RPC recordings")

// goldenDirs hold the recordings the golden transcripts play: the
// stream-JSON ones (adapter: claude, and stream-json: Qwen Code's in its
// dialect) and the JSON-RPC ones (adapter: acp or codex).
// Terminal recordings (fixtures/pty) are played by adapters/pty's tests.
var goldenDirs = []string{"claude", "gemini", "qwen", "opencode", "copilot", "codex"}

// TestGolden is the transcript suite: every recording with an editor
// section is replayed through the adapter it names and the whole bridge —
// the recorded agent played in-process, the editor's ACP messages in — and
// the ACP frames the bridge writes must equal the recording's want section
// (each also checked against the official schema). `make golden` (-update)
// rewrites the want sections.
func TestGolden(t *testing.T) {
	v := acptest.Load(t)
	ran := 0
	for _, dir := range goldenDirs {
		paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", dir, "*.txtar"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			fx, err := recording.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(fx.Editor) == 0 {
				continue
			}
			ran++
			t.Run(dir+"/"+filepath.Base(path), func(t *testing.T) {
				var got [][]byte
				synctest.Test(t, func(t *testing.T) { got = transcript(t, v, fx) })
				if *update {
					fx.File.SetSection(recording.SectionWant, formatFrames(got))
					if err := fx.Save(); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, ok := fx.File.Section(recording.SectionWant)
				if !ok {
					t.Fatalf("%s has an editor section but no want section: run make golden", path)
				}
				compareFrames(t, got, want)
			})
		}
	}
	if ran == 0 {
		t.Fatal("no JSON-RPC recording with an editor section found")
	}
}

// goldenAdapter builds the adapter fx names around the replay's player, as
// cmd/acpbridge does, with the recorded session id for every session.
func goldenAdapter(t *testing.T, fx *recording.Fixture) bridge.Adapter {
	sid := fx.Meta["session"]
	var wrap func(l replay.Launch) bridge.Adapter
	switch fx.Meta["adapter"] {
	case "claude":
		wrap = func(l replay.Launch) bridge.Adapter {
			return claude.New(claude.Options{Path: "claude", Launch: l, AwaitStart: true, NewSessionID: func() string { return sid }})
		}
	case "stream-json":
		d, ok := claude.BuiltinDialect(fx.Meta["dialect"])
		if !ok {
			t.Fatalf("%s: no built-in dialect %q", fx.Path, fx.Meta["dialect"])
		}
		wrap = func(l replay.Launch) bridge.Adapter {
			return claude.New(claude.Options{Dialect: d, Launch: l, AwaitStart: true, ModelCache: "-",
				NewSessionID: func() string { return sid }, Logger: zerolog.New(zerolog.NewTestWriter(t))}).Contract()
		}
	default:
		return rpcAdapter(t, fx.Path)
	}
	a, err := replay.New(fx, replay.Options{Wrap: wrap})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// rpcAdapter builds the adapter a JSON-RPC recording names around the
// replay's launcher, as cmd/acpbridge does; every agent process uses the
// recorded session id, which the editor section names.
func rpcAdapter(t *testing.T, path string) bridge.Adapter {
	rec, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	launch, err := replay.Launcher(rec, replay.PlayerOptions{NewSessionID: func() string { return rec.Meta["session"] },
		Log: zerolog.NewTestWriter(t)})
	if err != nil {
		t.Fatal(err)
	}
	log := zerolog.New(zerolog.NewTestWriter(t))
	if rec.Meta["adapter"] == "codex" {
		return codex.New(codex.Options{Path: "codex", Launch: launch, Logger: log})
	}
	name := rec.Meta["agent"]
	return native.New(native.Options{Name: name, Path: name, Launch: launch, Logger: log})
}

// transcript runs fx through the bridge and returns every frame written.
// After each editor message it waits until the bridge and the player are
// idle, so the order of frames is deterministic.
func transcript(t *testing.T, v *acptest.Validator, fx *recording.Fixture) [][]byte {
	check := v.NewChecker()
	a := goldenAdapter(t, fx)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := bridge.New(a, bridge.Options{Version: "test", Logger: zerolog.New(zerolog.NewTestWriter(t))})
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	var mu sync.Mutex
	var frames [][]byte
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if line = bytes.TrimSpace(line); len(line) > 0 {
				if cerr := check.AgentFrame(line); cerr != nil {
					t.Errorf("schema: %v", cerr)
				}
				mu.Lock()
				frames = append(frames, line)
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	for _, msg := range fx.Editor {
		check.ClientFrame(msg)
		if _, err := inW.Write(append(bytes.Clone(msg), '\n')); err != nil {
			t.Fatalf("writing to bridge: %v", err)
		}
		synctest.Wait()
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	<-collected
	a.Close()
	return frames
}

func formatFrames(frames [][]byte) []byte {
	var b bytes.Buffer
	for i, f := range frames {
		if i > 0 {
			b.WriteByte('\n')
		}
		json.Indent(&b, f, "", "  ")
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// compareFrames compares frame by frame, semantically.
func compareFrames(t *testing.T, got [][]byte, want []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(want))
	var wants []any
	for dec.More() {
		var w any
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("want section: %v", err)
		}
		wants = append(wants, w)
	}
	for i := 0; i < len(got) || i < len(wants); i++ {
		var g, w any
		if i < len(got) {
			json.Unmarshal(got[i], &g)
		}
		if i < len(wants) {
			w = wants[i]
		}
		if !reflect.DeepEqual(g, w) {
			wj, _ := json.Marshal(w)
			gj := "(none)"
			if i < len(got) {
				gj = string(got[i])
			}
			t.Fatalf("frame %d differs (-want +got); %d frames written, %d wanted\n- %s\n+ %s\n(run make golden if the change is intended)",
				i, len(got), len(wants), wj, gj)
		}
	}
}
