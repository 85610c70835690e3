// Command record drives a real agent CLI against the scripted model server
// (fixtures/testsupport/modelserver) and writes what crossed the CLI's stdin and stdout
// as a fixture: Claude Code in stream-JSON mode (fixtures/claude/NAME.txtar,
// the default), a native-ACP CLI (-agent gemini, qwen, opencode or copilot:
// fixtures/AGENT/NAME.txtar, "adapter: acp"), Codex's app-server (-agent
// codex: fixtures/codex/NAME.txtar, "adapter: codex") or a CLI in its
// stream-JSON dialect (-agent qwen -stream-json, scenarios in
// fixtures/scenarios/stream-json: fixtures/qwen/stream_json_NAME.txtar,
// "adapter: stream-json").
//
// The native-ACP CLIs share the scenarios in fixtures/scenarios/acp (tools
// named by role, so one scenario serves every CLI) and Codex has its own in
// fixtures/scenarios/codex; the host actions are the same vocabulary as
// Claude's (initialize, prompt, permission, interrupt, wait,
// wait_turn_end), spoken in the agent's protocol (dialect.go). The CLIs
// come from their pinned installs (fixtures/testsupport/agentenv, fixtures/testsupport/codexenv).
//
//	go run ./cmd/dev/record -agent gemini -scenario text
//	go run ./cmd/dev/record -agent codex -all
//
// A scenario is a JSON file in fixtures/scenarios/claude/: the model's replies
// (see modelserver.Scenario) plus the host's script (initialize, prompts,
// permission answers, interrupts, ...), extra environment, flags and project
// files. Usage:
//
//	go run ./cmd/dev/record -scenario demo -out fixtures/claude/demo.txtar
//	go run ./cmd/dev/record -all
//	go run ./cmd/dev/record -scenario demo -transcripts fixtures/claude/transcripts
//
// With -transcripts, the transcript the CLI stores for the session (the file
// session/load reads) is saved too, normalized the same way, without the
// bookkeeping lines that hold whole API request bodies.
//
// The CLI comes from -claude, else $CLAUDE_BIN (a relative path is taken
// from the repository root, as in the tests), else scripts/install-claude.sh
// (which installs the pinned version into .cache/claude). Each run gets a fresh
// temporary HOME, config dir, TMPDIR and project directory, removed afterwards;
// the CLI talks only to the local model server.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

type config struct {
	claude string
	agent  string // "" or claude: Claude Code; else a JSON-RPC agent
	// streamJSON records agent in its stream-JSON dialect instead.
	streamJSON bool
	version    string
	scenarios  string
	outDir     string
	// transcripts, if set, is where the CLI's own session transcript
	// (its JSONL file under the config dir) is also saved, as NAME.jsonl.
	transcripts string
	timeout     time.Duration
	settle      time.Duration
	verbose     bool
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg config
	name := flag.String("scenario", "", "scenario name (a file NAME.json in -scenarios)")
	out := flag.String("out", "", "fixture file to write (default: -dir/NAME.txtar)")
	all := flag.Bool("all", false, "record every scenario in -scenarios")
	flag.StringVar(&cfg.claude, "claude", "", "Claude Code executable (default $CLAUDE_BIN, relative to the repository root, else scripts/install-claude.sh)")
	flag.StringVar(&cfg.agent, "agent", "", "agent to record: claude (default), gemini, qwen, opencode, copilot or codex")
	flag.BoolVar(&cfg.streamJSON, "stream-json", false, "record -agent in its stream-JSON dialect (acpbridge stream-json --dialect AGENT), from fixtures/scenarios/stream-json")
	flag.StringVar(&cfg.scenarios, "scenarios", "", "directory of scenario files (default: the agent's, see scenarioDir)")
	flag.StringVar(&cfg.outDir, "dir", "", "directory for fixtures (with -all or without -out; default fixtures/AGENT)")
	flag.StringVar(&cfg.transcripts, "transcripts", "", "also save each session's transcript file as DIR/NAME.jsonl (e.g. fixtures/claude/transcripts)")
	flag.DurationVar(&cfg.timeout, "timeout", 90*time.Second, "limit for each host action that waits")
	flag.DurationVar(&cfg.settle, "settle", 400*time.Millisecond, "quiet time on stdout before the host writes")
	flag.BoolVar(&cfg.verbose, "v", false, "log host actions and model requests")
	flag.Parse()

	if (*name == "") == !*all || (*all && *out != "") {
		flag.Usage()
		return fmt.Errorf("give either -scenario NAME [-out FILE] or -all")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if cfg.agent == "claude" {
		cfg.agent = ""
	}
	if cfg.streamJSON && cfg.agent == "" {
		return fmt.Errorf("-stream-json needs -agent (e.g. -agent qwen)")
	}
	if cfg.scenarios == "" {
		cfg.scenarios = scenariosOf(cfg.agent)
		if cfg.streamJSON {
			cfg.scenarios = scenariosStreamJSON
		}
	}
	if cfg.outDir == "" {
		cfg.outDir = filepath.Join("fixtures", cmp.Or(cfg.agent, "claude"))
	}
	rec := record
	if cfg.streamJSON {
		rec = func(ctx context.Context, cfg *config, name, path string) error {
			return recordStreamJSON(ctx, cfg, cfg.agent, name, path)
		}
	} else if cfg.agent != "" {
		rec = func(ctx context.Context, cfg *config, name, path string) error {
			return recordAgent(ctx, cfg, cfg.agent, name, path)
		}
	} else if err := cfg.findCLI(ctx); err != nil {
		return err
	}
	names := []string{*name}
	if *all {
		var err error
		if names, err = scenarioFiles(cfg.scenarios); err != nil {
			return err
		}
		if len(names) == 0 {
			return fmt.Errorf("no scenarios in %s", cfg.scenarios)
		}
	}
	for _, n := range names {
		path := *out
		if path == "" {
			path = filepath.Join(cfg.outDir, n+".txtar")
			if cfg.streamJSON {
				path = filepath.Join(cfg.outDir, "stream_json_"+n+".txtar")
			}
		}
		fmt.Fprintf(os.Stderr, "record: %s -> %s\n", n, path)
		if err := rec(ctx, &cfg, n, path); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

func (c *config) logf(format string, args ...any) {
	if c.verbose {
		fmt.Fprintf(os.Stderr, "record: "+format+"\n", args...)
	}
}
