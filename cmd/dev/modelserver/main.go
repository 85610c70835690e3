// Command modelserver serves a scripted stand-in for the Anthropic Messages
// API, OpenAI Chat Completions and the Gemini API on a local port, for manual
// runs of a real CLI against it:
//
//	go run ./cmd/dev/modelserver -scenario fixtures/scenarios/claude/text.json -addr 127.0.0.1:8642
//	ANTHROPIC_BASE_URL=http://127.0.0.1:8642 ANTHROPIC_API_KEY=dummy claude -p hi
//	OPENAI_BASE_URL=http://127.0.0.1:8642/v1 OPENAI_API_KEY=dummy ...       # Chat Completions
//	GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8642 GEMINI_API_KEY=dummy ...   # Gemini API
//
// fixtures/testsupport/agentenv builds the complete offline environment of each
// native-ACP CLI (settings files included).
//
// Start the CLI in the directory given as -cwd (default: the current one), so
// that tool inputs written as {{cwd}}/... in the scenario point into it. The
// server logs one line per request to stderr and, with -dump DIR, writes
// every request body and its headers to DIR/NNN-KIND.json / .headers when it
// stops (SIGINT/SIGTERM). Scenario files of cmd/dev/record work as they are.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "modelserver:", err)
		os.Exit(1)
	}
}

func run() error {
	scenario := flag.String("scenario", "", "scenario JSON file, or the name of a built-in scenario ("+fmt.Sprint(modelserver.BuiltinNames())+")")
	addr := flag.String("addr", "127.0.0.1:8642", "listen address (host:port; port 0 picks one)")
	dump := flag.String("dump", "", "directory to write request bodies and headers to, at exit")
	cwd := flag.String("cwd", "", "value of {{cwd}} in the scenario (default: the current directory)")
	flag.Parse()

	sc, err := loadScenario(*scenario)
	if err != nil {
		return err
	}
	if *cwd == "" {
		if *cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	sc = sc.Expand(map[string]string{"cwd": *cwd})
	logger := log.New(os.Stderr, "", log.Ltime|log.Lmicroseconds)
	srv := modelserver.New(sc, modelserver.Options{Logf: logger.Printf})
	url, err := srv.Listen(*addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	logger.Printf("serving scenario %q (%d turns) at %s", sc.Name, len(sc.Turns), url)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	srv.Close()
	if *dump != "" {
		if err := os.MkdirAll(*dump, 0o755); err != nil {
			return err
		}
		for _, r := range srv.Requests() {
			name := filepath.Join(*dump, fmt.Sprintf("%03d-%s.json", r.Seq, r.Kind))
			if err := os.WriteFile(name, r.Body, 0o644); err != nil {
				return err
			}
			var hdr strings.Builder
			fmt.Fprintf(&hdr, "%s %s?%s\n", r.Method, r.Path, r.Query)
			_ = r.Header.Write(&hdr)
			if err := os.WriteFile(strings.TrimSuffix(name, ".json")+".headers", []byte(hdr.String()), 0o644); err != nil {
				return err
			}
		}
		logger.Printf("wrote %d request bodies to %s", len(srv.Requests()), *dump)
	}
	return nil
}

func loadScenario(arg string) (*modelserver.Scenario, error) {
	if arg == "" {
		return &modelserver.Scenario{Name: "empty"}, nil
	}
	if sc, ok := modelserver.Builtin(arg); ok {
		return sc, nil
	}
	return modelserver.Load(arg)
}
