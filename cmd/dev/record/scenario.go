package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// recording is one scenario file (fixtures/scenarios/claude/NAME.json). The
// model part (turns, ...) is a modelserver.Scenario read from the same file;
// the keys below are the host's part, which the model server ignores.
type scenario struct {
	Model *modelserver.Scenario `json:"-"`

	// Comment is the prose at the top of the fixture: what it shows.
	Comment string `json:"comment"`
	// Env adds variables to the CLI's environment.
	Env map[string]string `json:"env,omitempty"`
	// Args adds CLI flags after the standard stream-JSON ones.
	Args []string `json:"args,omitempty"`
	// Files are created in the project directory before the CLI starts
	// (relative path -> content).
	Files map[string]string `json:"files,omitempty"`
	// Host is the host's script.
	Host []action `json:"host"`
	// ToolErrors allows tool results with is_error (a denied tool, ...).
	// Without it such a result fails the recording: it usually means the
	// scenario asked for a tool the CLI does not offer or rejected input.
	ToolErrors bool `json:"tool_errors,omitempty"`
}

// Action kinds.
const (
	doInitialize  = "initialize"    // send initialize, wait for its response
	doPrompt      = "prompt"        // send a user message
	doSteer       = "steer"         // send a user message into the running turn, at once
	doPermission  = "permission"    // wait for can_use_tool, answer it
	doInterrupt   = "interrupt"     // send interrupt, wait for its response
	doSetMode     = "set_mode"      // send set_permission_mode, wait for its response
	doWait        = "wait"          // wait for a stdout line containing a string
	doWaitTurnEnd = "wait_turn_end" // wait for result, then the idle state
	doCloseStdin  = "close_stdin"   // close stdin and wait for the CLI to exit
	doControl     = "control"       // send any control request, wait for its response
)

// action is one step of the host script.
type action struct {
	Do string `json:"do"`
	// Text is the prompt text (prompt, steer).
	Text string `json:"text,omitempty"`
	// Tool is the tool name a permission request must be for (permission;
	// empty accepts any).
	Tool string `json:"tool,omitempty"`
	// Behavior is allow, allow_always or deny (permission).
	Behavior string `json:"behavior,omitempty"`
	// Answers are added to the tool's input as "answers" (permission, for
	// AskUserQuestion: question text -> chosen label, several labels of a
	// multi-select joined by ", ").
	Answers map[string]string `json:"answers,omitempty"`
	// Message is the deny message (permission).
	Message string `json:"message,omitempty"`
	// Interrupt makes a deny end the turn (permission).
	Interrupt bool `json:"interrupt,omitempty"`
	// Mode is the permission mode (set_mode).
	Mode string `json:"mode,omitempty"`
	// Contains is the substring a stdout line must contain (wait), and Count
	// how many such lines to wait for (default 1).
	Contains string `json:"contains,omitempty"`
	Count    int    `json:"count,omitempty"`
	// Request is the body of a control request (control; initialize adds
	// these fields to its request).
	Request map[string]any `json:"request,omitempty"`
}

func (a action) String() string {
	var b strings.Builder
	b.WriteString(a.Do)
	for _, kv := range [][2]string{{"tool", a.Tool}, {"behavior", a.Behavior}, {"mode", a.Mode}, {"contains", a.Contains}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
		}
	}
	if a.Text != "" {
		fmt.Fprintf(&b, " %q", a.Text)
	}
	return b.String()
}

// loadRecording reads a scenario file: both its model part and host part.
func loadRecording(path string) (*scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec scenario
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Model, err = modelserver.Load(path); err != nil {
		return nil, err
	}
	if err := rec.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rec, nil
}

func (r *scenario) validate() error {
	if len(r.Host) == 0 {
		return fmt.Errorf("no host actions")
	}
	for i, a := range r.Host {
		switch a.Do {
		case doInitialize, doInterrupt, doWaitTurnEnd, doCloseStdin:
		case doPrompt, doSteer:
			if a.Text == "" {
				return fmt.Errorf("host[%d]: %s without text", i, a.Do)
			}
		case doPermission:
			switch a.Behavior {
			case "allow", "allow_always", "deny":
			default:
				return fmt.Errorf("host[%d]: permission behavior %q (want allow, allow_always or deny)", i, a.Behavior)
			}
		case doSetMode:
			if a.Mode == "" {
				return fmt.Errorf("host[%d]: set_mode without mode", i)
			}
		case doWait:
			if a.Contains == "" {
				return fmt.Errorf("host[%d]: wait without contains", i)
			}
		case doControl:
			if _, ok := a.Request["subtype"].(string); !ok {
				return fmt.Errorf("host[%d]: control request without subtype", i)
			}
		default:
			return fmt.Errorf("host[%d]: unknown action %q", i, a.Do)
		}
	}
	return nil
}

// sessionID derives a stable version-4-shaped UUID from the scenario name,
// so that re-recording a fixture gives the same session id.
func sessionID(name string) string {
	h := sha256.Sum256([]byte("acpbridge fixture session " + name))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// scenarioFiles lists the scenario names in dir, sorted.
func scenarioFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".json"))
	}
	sort.Strings(names)
	return names, nil
}
