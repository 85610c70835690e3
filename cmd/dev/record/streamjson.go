package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// recordStreamJSON runs scenario name against agent in its stream-JSON
// dialect (the built-in dialect of `acpbridge stream-json` of that name:
// its flags, no session id of the host's) and writes its fixture to path
// ("adapter: stream-json", "dialect: NAME"). The host speaks Claude Code's
// protocol, as the engine does; the offline environment is the agent's
// native one (agentenv) without its ACP flags.
func recordStreamJSON(ctx context.Context, cfg *config, agent, name, path string) error {
	d, ok := claude.BuiltinDialect(agent)
	if !ok {
		return fmt.Errorf("no built-in stream-JSON dialect %q (there are %s)", agent, strings.Join(claude.BuiltinDialects(), ", "))
	}
	scenario := filepath.Join(cfg.scenarios, name+".json")
	run, err := startScenario(cfg, scenario)
	if err != nil {
		return err
	}
	defer run.close()
	rec, dirs, srv, url := run.rec, run.dirs, run.srv, run.url
	env, err := agentenv.New(agent, agentenv.Options{ModelURL: url, Root: dirs.root, Cwd: dirs.project})
	if err != nil {
		return err
	}
	for k, v := range rec.Env {
		env.Env = append(env.Env, k+"="+v)
	}
	args := append(append(append([]string(nil), d.Args...), env.Argv[1+len(env.Agent.ACPArgs):]...), rec.Args...)
	started := time.Now().UTC()
	s, err := startCLI(env.Argv[0], args, append(env.Env, d.Env...), env.Dir, cfg.settle, cfg.logf)
	if err != nil {
		return err
	}
	s.noStates = true
	runErr := s.run(ctx, dialectHost(d, rec.Host), cfg.timeout)
	waitErr := s.stop(20 * time.Second)
	if runErr != nil {
		return fmt.Errorf("%w\n%s stderr:\n%s", runErr, agent, s.stderr)
	}
	exit := 0
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		exit = ee.ExitCode()
	} else if waitErr != nil {
		return fmt.Errorf("waiting for the CLI: %w", waitErr)
	}
	if msg := firstToolError(s.steps); msg != "" && !rec.ToolErrors {
		return fmt.Errorf("a tool failed (set tool_errors if that is intended): %s", msg)
	}
	if n := srv.Remaining(); n > 0 {
		return fmt.Errorf("%d scripted model turn(s) were never requested", n)
	}
	authored, err := os.ReadFile(scenario)
	if err != nil {
		return err
	}
	// The CLI picks the session id; the recording gets a stable one.
	stable := sessionID(agent + "/stream-json/" + name)
	if live := cliSessionID(s.steps); live != "" {
		for i := range s.steps {
			s.steps[i].Line = []byte(strings.ReplaceAll(string(s.steps[i].Line), live, stable))
		}
	}
	norm := newNormalizer(stable, dirs.project, dirs.home, dirs.tmp, dirs.root, strings.TrimPrefix(url, "http://"),
		agentMachine(env.Argv[0]).scrubber(string(authored)), runDates(started, time.Now().UTC())...)
	norm.maxString = maxAgentString
	steps, err := norm.steps(s.steps)
	if err != nil {
		return err
	}
	meta := fmt.Sprintf("adapter: stream-json\ndialect: %s\nagent: %s\ncli: %s %s\nsession: %s\ncwd: %s\nhome: %s\nrecorded: go run ./cmd/dev/record -agent %s -stream-json -scenario %s\nexit: %d\n",
		d.Name, agent, agent, env.Agent.Version, stable, placeProject, placeHome, agent, name, exit)
	comment := streamJSONComment(rec, d.Title, agent, name)
	if err := writeFixture(path, comment, meta, recording.FormatScript(steps)); err != nil {
		return err
	}
	return addEditor(path, streamJSONEditor(stable, steps))
}

// dialectHost is the host script with, after initialize, the control
// requests the engine sends there for d: those that ask for the models and
// commands of a dialect that does not list them in its initialize answer.
// A replay then answers them as the CLI did.
func dialectHost(d *claude.Dialect, host []action) []action {
	var out []action
	for _, a := range host {
		out = append(out, a)
		if a.Do != doInitialize {
			continue
		}
		if d.Models == "get_available_models" {
			out = append(out, action{Do: doControl, Request: map[string]any{"subtype": "get_available_models"}})
		}
		if d.Commands == "supported_commands" {
			out = append(out, action{Do: doControl, Request: map[string]any{"subtype": "supported_commands"}})
		}
	}
	return out
}

// cliSessionID is the session id the CLI reported first (its system init,
// or a result), or "".
func cliSessionID(steps []recording.Step) string {
	for _, st := range steps {
		if st.Dir != recording.FromAgent {
			continue
		}
		if id := gjson.GetBytes(st.Line, "session_id").String(); id != "" {
			return id
		}
	}
	return ""
}

// streamJSONEditor derives, from what the host sent the CLI, the editor's
// side of the same session through the bridge (section editor): the
// initialize control request is the editor's initialize and session/new,
// a user message its session/prompt, an answer to can_use_tool its answer
// to the bridge's permission request (whose ids count from 1), interrupt
// its session/cancel and set_permission_mode its session/set_mode.
func streamJSONEditor(session string, steps []recording.Step) []byte {
	var e editorLines
	for _, st := range steps {
		if st.Dir != recording.ToAgent {
			continue
		}
		line := gjson.ParseBytes(st.Line)
		switch line.Get("type").String() + "/" + line.Get("request.subtype").String() {
		case "control_request/initialize":
			e.initialize()
			e.call("session/new", map[string]any{"cwd": placeProject, "mcpServers": []any{}})
		case "control_request/interrupt":
			e.notify("session/cancel", map[string]any{"sessionId": session})
		case "control_request/set_permission_mode":
			e.call("session/set_mode", map[string]any{"sessionId": session, "modeId": line.Get("request.mode").String()})
		case "user/":
			var prompt []any
			for _, b := range line.Get("message.content").Array() {
				if b.Get("type").String() == "text" {
					prompt = append(prompt, map[string]any{"type": "text", "text": b.Get("text").String()})
				}
			}
			e.call("session/prompt", map[string]any{"sessionId": session, "prompt": prompt})
		case "control_response/":
			option := "reject_once"
			if line.Get("response.response.behavior").String() == "allow" {
				option = "allow_once"
			}
			e.answer(map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}})
		}
	}
	return e.out.Bytes()
}

func streamJSONComment(rec *scenario, title, agent, name string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(rec.Comment))
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Recorded from the real %s in its stream-JSON dialect (acpbridge stream-json\n"+
		"--dialect %s) against the scripted model server, from\n"+
		"%s/%s.json:\n\n"+
		"\tgo run ./cmd/dev/record -agent %s -stream-json -scenario %s\n\n"+
		"Temp paths are rewritten to %s (cwd) and %s (HOME); the\n"+
		"session id is a stable one, random UUIDs are renumbered, timestamps and\n"+
		"timings zeroed, strings cut at %d bytes. \"<\" lines are what the host\n"+
		"wrote to the CLI's stdin, \">\" lines what the CLI wrote on its stdout,\n"+
		"in order.\n",
		title, agent, scenariosStreamJSON, name, agent, name, placeProject, placeHome, maxAgentString)
	return b.String()
}
