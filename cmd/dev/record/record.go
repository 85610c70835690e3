package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/claudeenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// findCLI resolves the Claude executable and its version.
func (c *config) findCLI(ctx context.Context) error {
	if c.claude == "" && os.Getenv(claudeenv.EnvVar) != "" {
		p, err := claudeenv.Find()
		if err != nil {
			return err
		}
		c.claude = p
	}
	if c.claude == "" {
		cmd := exec.CommandContext(ctx, "scripts/install-claude.sh")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("installing the Claude CLI (run from the repository root): %w", err)
		}
		c.claude = strings.TrimSpace(string(out))
	}
	// The CLI runs in the project directory: make the path absolute.
	path, err := exec.LookPath(c.claude)
	if err != nil {
		return err
	}
	if c.claude, err = filepath.Abs(path); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, c.claude, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", c.claude, err)
	}
	// "2.1.329 (Claude Code)"
	c.version = strings.Fields(string(out) + " ?")[0]
	c.logf("using %s (version %s)", c.claude, c.version)
	return nil
}

// cliArgs are the stream-JSON flags an SDK host passes.
func cliArgs(session string) []string {
	return []string{
		"--output-format", "stream-json",
		"--verbose",
		"--input-format", "stream-json",
		"--include-partial-messages",
		"--permission-prompt-tool", "stdio",
		"--session-id=" + session,
	}
}

// record runs one scenario and writes its fixture to path.
func record(ctx context.Context, cfg *config, name, path string) (err error) {
	rec, err := loadRecording(filepath.Join(cfg.scenarios, name+".json"))
	if err != nil {
		return err
	}
	dirs, err := newRunDirs()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dirs.root)
	for rel, content := range rec.Files {
		p := filepath.Join(dirs.project, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}

	model := rec.Model.Expand(map[string]string{"cwd": dirs.project, "home": dirs.home})
	srv := modelserver.New(model, modelserver.Options{Logf: cfg.logf})
	url := srv.Start()
	defer srv.Close()

	session := sessionID(name)
	env := modelserver.ClaudeEnv(url, dirs.home, dirs.tmp)
	keys := make([]string, 0, len(rec.Env))
	for k := range rec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+rec.Env[k])
	}
	started := time.Now().UTC()
	args := append(cliArgs(session), rec.Args...)
	s, err := startCLI(cfg.claude, args, env, dirs.project, cfg.settle, cfg.logf)
	if err != nil {
		return err
	}
	runErr := s.run(ctx, rec.Host, cfg.timeout)
	waitErr := s.stop(20 * time.Second)
	if runErr != nil {
		return fmt.Errorf("%w\nCLI stderr:\n%s", runErr, s.stderr)
	}
	exit := 0
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		exit = ee.ExitCode()
	} else if waitErr != nil {
		return fmt.Errorf("waiting for the CLI: %w", waitErr)
	}
	if !rec.ToolErrors {
		if msg := firstToolError(s.steps); msg != "" {
			return fmt.Errorf("a tool failed (set tool_errors if that is intended): %s", msg)
		}
	}
	if n := srv.Remaining(); n > 0 {
		return fmt.Errorf("%d scripted model turn(s) were never requested", n)
	}

	// The CLI tells the model today's date; ClaudeEnv sets TZ=UTC, so the
	// recorder knows which dates to replace.
	authored, err := os.ReadFile(filepath.Join(cfg.scenarios, name+".json"))
	if err != nil {
		return err
	}
	norm := newNormalizer(session, dirs.project, dirs.home, dirs.tmp, dirs.root, strings.TrimPrefix(url, "http://"),
		thisMachine(cfg.claude).scrubber(string(authored)), runDates(started, time.Now().UTC())...)
	steps, err := norm.steps(s.steps)
	if err != nil {
		return err
	}
	if cfg.transcripts != "" {
		dst := filepath.Join(cfg.transcripts, name+".jsonl")
		if err := saveTranscript(norm, transcriptPath(env, dirs.project, session), dst); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "record: %s transcript -> %s\n", name, dst)
	}
	meta := fmt.Sprintf("adapter: claude\ncli: claude %s\nsession: %s\ncwd: %s\nhome: %s\nrecorded: go run ./cmd/dev/record -scenario %s\nexit: %d\n",
		cfg.version, session, placeProject, placeHome, name, exit)
	return writeFixture(path, fixtureComment(rec, name), meta, recording.FormatScript(steps))
}

// runDates lists the calendar dates from start to end (one or two: a run
// takes seconds, but may cross midnight).
func runDates(start, end time.Time) []string {
	dates := []string{start.Format(time.DateOnly)}
	if d := end.Format(time.DateOnly); d != dates[0] {
		dates = append(dates, d)
	}
	return dates
}

// runDirs is the private file tree of one run.
type runDirs struct {
	root, home, project, tmp string
}

// scenarioRun is a scenario made ready to record against an agent that
// speaks to a model API: its files written into fresh run folders, and its
// scripted model server started at url. close stops the server and
// removes the folders.
type scenarioRun struct {
	rec   *scenario
	dirs  runDirs
	srv   *modelserver.Server
	url   string
	close func()
}

// startScenario loads the scenario file path and makes it ready to run.
func startScenario(cfg *config, path string) (*scenarioRun, error) {
	rec, err := loadRecording(path)
	if err != nil {
		return nil, err
	}
	dirs, err := newRunDirs()
	if err != nil {
		return nil, err
	}
	if err := writeFiles(dirs.project, rec.Files); err != nil {
		os.RemoveAll(dirs.root)
		return nil, err
	}
	srv := modelserver.New(rec.Model.Expand(map[string]string{"cwd": dirs.project, "home": dirs.home}),
		modelserver.Options{Logf: cfg.logf})
	url := srv.Start()
	return &scenarioRun{rec: rec, dirs: dirs, srv: srv, url: url, close: func() {
		srv.Close()
		os.RemoveAll(dirs.root)
	}}, nil
}

func newRunDirs() (runDirs, error) {
	root, err := os.MkdirTemp("", "acpbridge-record-")
	if err != nil {
		return runDirs{}, err
	}
	// The CLI reports resolved paths (macOS: /var -> /private/var).
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if repo := enclosingRepo(root); repo != "" {
		os.RemoveAll(root)
		return runDirs{}, fmt.Errorf("the temp dir %s is inside the git checkout %s: the CLI would tell the model its branch and status; set TMPDIR to a directory outside any checkout", filepath.Dir(root), repo)
	}
	d := runDirs{
		root:    root,
		home:    filepath.Join(root, "home"),
		project: filepath.Join(root, "project"),
		tmp:     filepath.Join(root, "tmp"),
	}
	for _, p := range []string{d.home, d.project, d.tmp} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			os.RemoveAll(root)
			return runDirs{}, err
		}
	}
	return d, nil
}

// enclosingRepo returns the nearest directory at or above dir that holds a
// .git entry, or "". The CLI finds such a checkout by itself (it ignores
// GIT_CEILING_DIRECTORIES) and tells the model "Is a git repository: true"
// and the branch, which would make a recording depend on where the machine
// keeps its temp dir.
func enclosingRepo(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

func fixtureComment(rec *scenario, name string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(rec.Comment))
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Recorded from the real Claude Code CLI (stream-JSON mode) against the scripted\n"+
		"model server, from fixtures/scenarios/claude/%s.json:\n\n"+
		"\tgo run ./cmd/dev/record -scenario %s\n\n"+
		"Temp paths are rewritten to %s (cwd) and %s (HOME);\n"+
		"random UUIDs are renumbered, timestamps and timings zeroed. \"<\" lines are\n"+
		"what the host wrote to the CLI's stdin, \">\" lines what the CLI wrote on its\n"+
		"stdout, in order.\n",
		name, name, placeProject, placeHome)
	return b.String()
}

// writeFixture writes the comment, meta and agent sections, keeping any other
// sections (editor, want) of an existing file.
func writeFixture(path, comment, meta string, agent []byte) error {
	f := &recording.File{}
	if data, err := os.ReadFile(path); err == nil {
		if old, err := recording.Parse(data); err == nil {
			f = old
		}
	}
	f.Comment = comment
	f.SetSection(recording.SectionMeta, []byte(meta))
	f.SetSection(recording.SectionAgent, agent)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return recording.WriteFile(path, f)
}

// firstToolError returns the content of the first tool_result with is_error
// in the CLI's user frames, or "".
func firstToolError(steps []recording.Step) string {
	for _, st := range steps {
		if st.Dir != recording.FromAgent {
			continue
		}
		var m struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(st.Line, &m) != nil || m.Type != "user" {
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			IsError bool            `json:"is_error"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.IsError {
				return string(b.Content)
			}
		}
	}
	return ""
}
