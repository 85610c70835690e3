package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"
)

// run plays the host script against the CLI. Each action that waits has its
// own timeout.
func (s *cliSession) run(ctx context.Context, host []action, timeout time.Duration) error {
	for i, a := range host {
		s.logf("host[%d]: %s", i, a)
		actx, cancel := context.WithTimeout(ctx, timeout)
		err := s.do(actx, a)
		cancel()
		if err != nil {
			return fmt.Errorf("host[%d] %s: %w", i, a, err)
		}
	}
	return nil
}

func (s *cliSession) do(ctx context.Context, a action) error {
	switch a.Do {
	case doInitialize:
		req := map[string]any{"subtype": "initialize"}
		for k, v := range a.Request {
			req[k] = v
		}
		return s.control(ctx, req, true)
	case doPrompt:
		return s.send(userMessage{
			Type:    "user",
			Message: userContent{Role: "user", Content: []textContent{{Type: "text", Text: a.Text}}},
		})
	case doSteer:
		// No settling, as for an interrupt: the message is meant to join
		// the turn while the reply streams. It is written as the bridge
		// writes a steering message: a uuid, which the result that
		// answers it lists, and priority "now".
		return s.write(userMessage{
			Type:     "user",
			Message:  userContent{Role: "user", Content: []textContent{{Type: "text", Text: a.Text}}},
			UUID:     newUUID(),
			Priority: "now",
		})
	case doPermission:
		return s.permission(ctx, a)
	case doInterrupt:
		// No settling: an interrupt is meant to land while the CLI is busy,
		// right after the preceding wait saw what it waited for.
		return s.control(ctx, map[string]any{"subtype": "interrupt"}, false)
	case doSetMode:
		return s.control(ctx, map[string]any{"subtype": "set_permission_mode", "mode": a.Mode}, true)
	case doControl:
		return s.control(ctx, a.Request, true)
	case doWait:
		return s.waitContains(ctx, a.Contains, max(a.Count, 1))
	case doWaitTurnEnd:
		return s.waitTurnEnd(ctx)
	case doCloseStdin:
		s.quiet()
		s.closeStdin()
		return s.waitFor(ctx, "exit", func() bool { return false }) // EOF ends it
	}
	return fmt.Errorf("unknown action %q", a.Do)
}

// control sends a control request (after the usual settling unless settle
// is false) and waits for its response.
func (s *cliSession) control(ctx context.Context, req map[string]any, settle bool) error {
	s.nextReq++
	id := fmt.Sprintf("req_%d_%v", s.nextReq, req["subtype"])
	if settle {
		s.quiet()
	}
	if err := s.write(controlRequest{Type: "control_request", RequestID: id, Request: req}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "control_response "+id, func() bool { _, ok := s.answers[id]; return ok }); err != nil {
		return err
	}
	var r struct {
		Subtype string `json:"subtype"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(s.answers[id], &r)
	if r.Subtype == "error" {
		return fmt.Errorf("control request %v failed: %s", req["subtype"], r.Error)
	}
	return nil
}

// permission waits for the next can_use_tool request and answers it.
func (s *cliSession) permission(ctx context.Context, a action) error {
	if err := s.waitFor(ctx, "can_use_tool", func() bool { return len(s.pending) > 0 }); err != nil {
		return err
	}
	req := s.pending[0]
	s.pending = s.pending[1:]
	if a.Tool != "" && req["tool_name"] != a.Tool {
		return fmt.Errorf("can_use_tool is for %v, want %s", req["tool_name"], a.Tool)
	}
	var resp map[string]any
	switch a.Behavior {
	case "allow", "allow_always":
		resp = map[string]any{"behavior": "allow", "updatedInput": withAnswers(req["input"], a.Answers)}
		if a.Behavior == "allow_always" {
			if sugg, ok := req["permission_suggestions"].([]any); ok && len(sugg) > 0 {
				resp["updatedPermissions"] = sugg
			} else {
				resp["updatedPermissions"] = []any{map[string]any{
					"type": "addRules", "behavior": "allow", "destination": "session",
					"rules": []any{map[string]any{"toolName": req["tool_name"]}},
				}}
			}
		}
	case "deny":
		msg := a.Message
		if msg == "" {
			msg = "The user denied this tool use."
		}
		resp = map[string]any{"behavior": "deny", "message": msg}
		if a.Interrupt {
			resp["interrupt"] = true
		}
	}
	id, _ := req["request_id"].(string)
	return s.send(controlResponse{
		Type:     "control_response",
		Response: controlResult{Subtype: "success", RequestID: id, Response: resp},
	})
}

// withAnswers is the tool input with the host's answers added, as a host
// answering AskUserQuestion does.
func withAnswers(input any, answers map[string]string) any {
	in, ok := input.(map[string]any)
	if !ok || len(answers) == 0 {
		return input
	}
	out := make(map[string]any, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	out["answers"] = answers
	return out
}

// waitContains waits until count stdout lines, counted from now, contain sub.
func (s *cliSession) waitContains(ctx context.Context, sub string, count int) error {
	from := len(s.steps)
	return s.waitFor(ctx, fmt.Sprintf("%d line(s) containing %q", count, sub), func() bool {
		n := 0
		for _, st := range s.steps[from:] {
			if bytes.Contains(st.Line, []byte(sub)) {
				n++
			}
		}
		return n >= count
	})
}

// waitTurnEnd waits for the end of the current turn: a result frame and then
// the idle session state (or the result alone, from a CLI that sends no
// states). A permission request on the way is an error: the script should
// have answered it.
func (s *cliSession) waitTurnEnd(ctx context.Context) error {
	err := s.waitFor(ctx, "result and idle", func() bool {
		return len(s.pending) > 0 || (s.results > s.turnsEnded && (s.idleSeen > 0 || s.noStates))
	})
	if err != nil {
		return err
	}
	if len(s.pending) > 0 {
		return fmt.Errorf("unexpected can_use_tool for %v while waiting for the turn to end", s.pending[0]["tool_name"])
	}
	s.turnsEnded = s.results
	return nil
}

// Host-to-CLI frames. Structs keep the key order of the SDKs' frames.
type (
	controlRequest struct {
		Type      string         `json:"type"`
		RequestID string         `json:"request_id"`
		Request   map[string]any `json:"request"`
	}
	controlResponse struct {
		Type     string        `json:"type"`
		Response controlResult `json:"response"`
	}
	controlResult struct {
		Subtype   string         `json:"subtype"`
		RequestID string         `json:"request_id"`
		Response  map[string]any `json:"response"`
	}
	userMessage struct {
		Type            string      `json:"type"`
		Message         userContent `json:"message"`
		ParentToolUseID *string     `json:"parent_tool_use_id"`
		SessionID       string      `json:"session_id"`
		// UUID and Priority are set on a steering message (steer).
		UUID     string `json:"uuid,omitempty"`
		Priority string `json:"priority,omitempty"`
	}
	userContent struct {
		Role    string        `json:"role"`
		Content []textContent `json:"content"`
	}
	textContent struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
)

// newUUID returns a random version-4 UUID (the normalizer renumbers it in
// the recording, as it does the CLI's own).
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
