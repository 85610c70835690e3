package bridge_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/fixtures"
)

var update = flag.Bool("update", false, "rewrite the want sections of the golden transcripts")

// TestGolden is the transcript suite: every fixture under fixtures/ with an
// editor section is replayed through the whole bridge — the recorded native
// stream through the adapter, the editor's ACP messages in — and the exact
// ACP frames the bridge writes must equal the fixture's want section. Every
// frame is also validated against the official schema. `go test ./bridge
// -run TestGolden -update` rewrites the want sections.
func TestGolden(t *testing.T) {
	v := acptest.Load(t)
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, path := range paths {
		fx, err := fixtures.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		// The JSON-RPC recordings (adapter: acp, codex) are played by
		// adapters/replay's TestGolden, through their own adapters.
		if len(fx.Editor) == 0 || fx.Meta["adapter"] != "claude" {
			continue
		}
		ran++
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			var got [][]byte
			synctest.Test(t, func(t *testing.T) { got = transcript(t, v, fx) })
			if *update {
				fx.File.SetSection(fixtures.SectionWant, formatFrames(got))
				if err := fx.Save(); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := fx.File.Section(fixtures.SectionWant)
			if !ok {
				t.Fatalf("%s has an editor section but no want section: run with -update", path)
			}
			compareFrames(t, got, want)
		})
	}
	if ran == 0 {
		t.Fatal("no fixture with an editor section found")
	}
}

// transcript runs fx through the bridge and returns every frame written.
// After each editor message it waits until the bridge and the fake agent
// are idle, so the order of frames is deterministic.
func transcript(t *testing.T, v *acptest.Validator, fx *fixtures.Fixture) [][]byte {
	check := v.NewChecker()
	sid := fx.Meta["session"]
	a, err := replay.New(fx, replay.Options{Wrap: func(l replay.Launch) replay.Agent {
		return claude.New(claude.Options{Path: "claude", Launch: l, AwaitStart: true, NewSessionID: func() string { return sid }})
	}})
	if err != nil {
		t.Fatal(err)
	}
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
		if _, err := inW.Write(append(append([]byte(nil), msg...), '\n')); err != nil {
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
			t.Fatalf("frame %d differs (-want +got); %d frames written, %d wanted\n- %s\n+ %s\n(run with -update if the change is intended)",
				i, len(got), len(wants), wj, orNone(got, i))
		}
	}
}

func orNone(frames [][]byte, i int) string {
	if i < len(frames) {
		return string(frames[i])
	}
	return fmt.Sprint("(none)")
}
