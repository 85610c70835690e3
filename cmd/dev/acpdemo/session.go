package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// session runs the scripted conversation: initialize, session/new, then
// each prompt in turn.
func (c *client) session(ctx context.Context, prompts []string) error {
	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
		AgentInfo       *struct {
			Name, Title, Version string
		} `json:"agentInfo"`
	}
	err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]string{"name": "acpdemo", "version": "1"},
	}, &init)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if init.AgentInfo != nil {
		c.out.banner(init.AgentInfo.Title, init.AgentInfo.Name, init.AgentInfo.Version, init.ProtocolVersion)
	}
	cwd, _ := os.Getwd()
	var sess struct {
		SessionID string `json:"sessionId"`
		Modes     *struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	if err := c.call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &sess); err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	mode := ""
	if sess.Modes != nil {
		mode = sess.Modes.CurrentModeID
	}
	c.out.session(mode)
	for _, p := range prompts {
		c.out.user(p)
		var res struct {
			StopReason string `json:"stopReason"`
		}
		err := c.call(ctx, "session/prompt", map[string]any{
			"sessionId": sess.SessionID,
			"prompt":    []any{map[string]string{"type": "text", "text": p}},
		}, &res)
		if err != nil {
			c.out.failed(err)
			return fmt.Errorf("session/prompt: %w", err)
		}
		c.out.stop(res.StopReason)
	}
	return nil
}

// permission answers a session/request_permission according to -answer and
// prints what was asked and what was answered. It runs on the session
// goroutine, so the question is printed where it came in the stream.
func (c *client) permission(m msg) {
	var req struct {
		ToolCall struct {
			ToolCallID string  `json:"toolCallId"`
			Title      *string `json:"title"`
			Kind       *string `json:"kind"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Name     string `json:"name"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	if err := json.Unmarshal(m.Params, &req); err != nil || len(req.Options) == 0 {
		c.write(msg{ID: m.ID, Error: &rpcError{Code: -32602, Message: "Invalid params"}})
		return
	}
	want := map[string]string{"allow": "allow_once", "always": "allow_always", "reject": "reject_once"}[c.answer]
	pick := req.Options[0]
	for _, o := range req.Options {
		if o.Kind == want {
			pick = o
			break
		}
	}
	c.out.permission(req.ToolCall.ToolCallID, deref(req.ToolCall.Title), deref(req.ToolCall.Kind), pick.Name)
	res, _ := json.Marshal(map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": pick.OptionID}})
	c.write(msg{ID: m.ID, Result: res})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// userText extracts the text of a stream-JSON user message line (a
// recorded prompt), or "" when the line is something else.
func userText(line []byte) string {
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil || m.Type != "user" {
		return ""
	}
	var s string
	if json.Unmarshal(m.Message.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Message.Content, &blocks) != nil {
		return ""
	}
	for _, b := range blocks {
		if b.Type == "text" {
			return b.Text
		}
	}
	return ""
}
