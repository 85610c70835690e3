package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/adapters/replay"
	"github.com/acpbridge/acpbridge/bridge"
	"github.com/acpbridge/acpbridge/internal/recording"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// agentEnv, when set in the environment, makes the test binary the agent:
// the bridge serving a replay of the fixture it names on stdin/stdout,
// wired as `acpbridge replay FIXTURE` wires it.
const agentEnv = "ACPDEMO_TEST_REPLAY"

func TestMain(m *testing.M) {
	if path := os.Getenv(agentEnv); path != "" {
		if err := serveReplay(path); err != nil {
			fmt.Fprintln(os.Stderr, "replay agent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveReplay(path string) error {
	rec, err := recording.Open(path)
	if err != nil {
		return err
	}
	a, err := replay.Stream(rec, replay.Options{Wrap: func(l replay.Launch) bridge.Adapter {
		return claude.New(claude.Options{Path: "claude", Launch: l, AwaitStart: true})
	}})
	if err != nil {
		return err
	}
	defer a.Close()
	return bridge.New(a, bridge.Options{Version: "test"}).ServeStdio(context.Background(), os.Stdin, os.Stdout)
}

// TestDemoOutput runs the demo against the recorded demo session, as `make
// demo` does, and compares what it prints with a golden file: the same on
// every run (the session line first, the commands as a count, each tool
// under one name). It runs the demo a few times, because the order of the
// first lines once depended on goroutine scheduling.
func TestDemoOutput(t *testing.T) {
	fixture := filepath.Join("..", "..", "..", "fixtures", "claude", "demo.txtar")
	for _, tt := range []struct {
		answer, golden string
	}{
		{"allow", "demo.golden"},
		{"reject", "demo_reject.golden"},
	} {
		t.Run(tt.answer, func(t *testing.T) {
			t.Setenv(agentEnv, fixture)
			// A race-enabled agent would sleep a second at exit.
			t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			prompts, err := fixturePrompts(fixture)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.golden)
			for i := range 3 {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				var out bytes.Buffer
				err := run(ctx, []string{os.Args[0]}, prompts, tt.answer, newPrinter(&out, false))
				cancel()
				if err != nil {
					t.Fatalf("run %d: %v\n%s", i, err, out.String())
				}
				if *update && i == 0 {
					if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Fatalf("run %d printed:\n%s\nwant (%s):\n%s", i, out.String(), golden, want)
				}
			}
		})
	}
}
