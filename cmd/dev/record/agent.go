package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// agentRun is one JSON-RPC agent to record: a native-ACP CLI (agentenv) or
// Codex's app-server (codexenv).
type agentRun struct {
	kind    string // fixture meta "adapter": acp or codex
	env     *agentenv.Env
	version string
	dialect dialect
}

// scenariosStreamJSON holds the scenarios of CLIs recorded in their
// stream-JSON dialect: tools named by role, the host speaking Claude Code's
// protocol.
const scenariosStreamJSON = "fixtures/scenarios/stream-json"

// scenarioDir is where the scenarios of an agent live: one set for the
// native-ACP CLIs, one for Codex, one for Claude Code.
func scenariosOf(agent string) string {
	switch agent {
	case "", "claude":
		return "fixtures/scenarios/claude"
	case "codex":
		return "fixtures/scenarios/codex"
	}
	return "fixtures/scenarios/acp"
}

// newAgentRun builds the offline environment of agent in dirs, against the
// model server at url.
func newAgentRun(agent string, dirs runDirs, url string) (*agentRun, error) {
	if agent == "codex" {
		bin, err := codexenv.Find()
		if err != nil {
			return nil, err
		}
		ce, err := codexenv.New(dirs.root, url, "")
		if err != nil {
			return nil, err
		}
		env := &agentenv.Env{Agent: agentenv.Agent{Name: "codex", Title: "Codex"}, Argv: []string{bin, "app-server"},
			Env: ce.Vars, Dir: ce.Dir, Home: filepath.Join(dirs.root, "home")}
		return &agentRun{kind: "codex", env: env, version: cliVersion(bin, ce.Vars), dialect: &codexDialect{}}, nil
	}
	env, err := agentenv.New(agent, agentenv.Options{ModelURL: url, Root: dirs.root, Cwd: dirs.project})
	if err != nil {
		return nil, err
	}
	return &agentRun{kind: "acp", env: env, version: env.Agent.Version, dialect: &acpDialect{}}, nil
}

// cliVersion is the last word of `BIN --version` ("codex-cli 0.169.0").
func cliVersion(bin string, env []string) string {
	cmd := exec.Command(bin, "--version")
	cmd.Env = env
	out, err := cmd.Output()
	if f := strings.Fields(string(out)); err == nil && len(f) > 0 {
		return f[len(f)-1]
	}
	return "?"
}

// recordAgent runs scenario name against agent and writes its fixture to
// path.
func recordAgent(ctx context.Context, cfg *config, agent, name, path string) error {
	scenario := filepath.Join(cfg.scenarios, name+".json")
	sr, err := startScenario(cfg, scenario)
	if err != nil {
		return err
	}
	defer sr.close()
	rec, dirs, srv, url := sr.rec, sr.dirs, sr.srv, sr.url
	run, err := newAgentRun(agent, dirs, url)
	if err != nil {
		return err
	}
	for k, v := range rec.Env {
		run.env.Env = append(run.env.Env, k+"="+v)
	}
	run.env.Argv = append(run.env.Argv, rec.Args...)
	started := time.Now().UTC()
	p, err := run.env.Start()
	if err != nil {
		return err
	}
	h := newRPCHost(p.Stdin, p.Stdout, cfg.logf)
	session, runErr := runHost(ctx, cfg, h, run.dialect, rec.Host, dirs.project)
	p.Stop(10 * time.Second)
	<-h.done
	if runErr != nil {
		return fmt.Errorf("%w\n%s stderr:\n%s", runErr, agent, p.Stderr())
	}
	if n := srv.Remaining(); n > 0 {
		return fmt.Errorf("%d scripted model turn(s) were never requested", n)
	}
	authored, err := os.ReadFile(scenario)
	if err != nil {
		return err
	}
	// The agent picks the session id; the recording gets a stable one.
	stable := sessionID(agent + "/" + name)
	raw := h.recorded()
	for i := range raw {
		raw[i].Line = []byte(strings.ReplaceAll(string(raw[i].Line), session, stable))
	}
	norm := newNormalizer(stable, dirs.project, dirs.home, dirs.tmp, dirs.root, strings.TrimPrefix(url, "http://"),
		agentMachine(run.env.Argv[0]).scrubber(string(authored)), runDates(started, time.Now().UTC())...)
	norm.maxString = maxAgentString
	steps, err := norm.steps(raw)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("adapter: %s\nagent: %s\ncli: %s %s\nsession: %s\ncwd: %s\nhome: %s\nrecorded: go run ./cmd/dev/record -agent %s -scenario %s\n",
		run.kind, agent, agent, run.version, stable, placeProject, placeHome, agent, name)
	if err := writeFixture(path, agentComment(rec, agent, run.env.Agent.Title, name), meta, recording.FormatScript(steps)); err != nil {
		return err
	}
	return addEditor(path, editorSection(run.kind, steps))
}

// addEditor gives the fixture at path an editor section, unless it has one
// (written by hand, or kept from an earlier recording).
func addEditor(path string, editor []byte) error {
	fx, err := recording.Load(path)
	if err != nil {
		return err
	}
	if _, ok := fx.File.Section(recording.SectionEditor); ok {
		return nil
	}
	fx.File.SetSection(recording.SectionEditor, editor)
	return fx.Save()
}

// maxAgentString bounds the string values of a JSON-RPC recording, so a
// recording stays small enough to read and review.
const maxAgentString = 512

// agentMachine is thisMachine plus where the pinned CLIs really live: the
// agents name their own executable (Copilot's terminal-auth command), and
// .cache may be a link to a directory outside the checkout.
func agentMachine(cli string) machine {
	m := thisMachine(cli)
	if wd, err := os.Getwd(); err == nil {
		cache := filepath.Join(wd, ".cache")
		if r, err := filepath.EvalSymlinks(cache); err == nil && r != cache {
			m.paths = append(m.paths, r)
		}
	}
	return m
}

// runHost plays the host's script; it returns the session id.
func runHost(ctx context.Context, cfg *config, h *rpcHost, d dialect, host []action, cwd string) (string, error) {
	var session string
	for i, a := range host {
		cfg.logf("host[%d]: %s", i, a)
		actx, cancel := context.WithTimeout(ctx, cfg.timeout)
		err := func() error {
			switch a.Do {
			case doInitialize:
				var err error
				session, err = d.open(actx, h, cwd)
				return err
			case doPrompt:
				h.settle(actx, cfg.settle)
				return d.prompt(actx, h, a.Text)
			case doPermission:
				return d.permission(actx, h, a.Behavior)
			case doInterrupt:
				if err := d.interrupt(actx, h); err != nil {
					return err
				}
				return d.turnEnd(actx, h)
			case doWait:
				from := 0
				for range max(a.Count, 1) {
					var err error
					if _, from, err = h.waitFor(actx, from, fmt.Sprintf("a line containing %q", a.Contains),
						func(m rpcLine) bool { return contains(m, a.Contains) }); err != nil {
						return err
					}
				}
				return nil
			case doWaitTurnEnd:
				if err := d.turnEnd(actx, h); err != nil {
					return err
				}
				h.settle(actx, cfg.settle)
				return nil
			}
			return fmt.Errorf("%s is not an action for a JSON-RPC agent", a.Do)
		}()
		cancel()
		if err != nil {
			return "", fmt.Errorf("host[%d] %s: %w", i, a, err)
		}
	}
	return session, nil
}

func writeFiles(dir string, files map[string]string) error {
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func agentComment(rec *scenario, agent, title, name string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(rec.Comment))
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Recorded from the real %s against the scripted model server, from\n"+
		"%s/%s.json:\n\n"+
		"\tgo run ./cmd/dev/record -agent %s -scenario %s\n\n"+
		"Temp paths are rewritten to %s (cwd) and %s (HOME); the\n"+
		"session id is a stable one, random UUIDs are renumbered, timestamps and\n"+
		"timings zeroed, strings cut at %d bytes. \"<\" lines are what the host\n"+
		"wrote to the agent's stdin, \">\" lines what the agent wrote on its stdout,\n"+
		"in order.\n",
		title, scenariosOf(agent), name, agent, name, placeProject, placeHome, maxAgentString)
	return b.String()
}
