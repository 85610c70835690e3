package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// ResumeSession reopens a stored thread without replaying it.
func (a *Adapter) ResumeSession(ctx context.Context, req acp.ResumeSessionRequest, c acp.Client) (acp.Session, error) {
	s, _, err := a.resume(ctx, string(req.SessionID), req.Cwd, threadConfig(req.McpServers, req.AdditionalDirectories), c)
	return s, err
}

// LoadSession reopens a stored thread and replays its history through c
// before it returns: the user's messages, the agent's text and reasoning,
// and each tool call as it ended.
func (a *Adapter) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	s, th, err := a.resume(ctx, string(req.SessionID), req.Cwd, threadConfig(req.McpServers, req.AdditionalDirectories), c)
	if err != nil {
		return nil, err
	}
	for _, u := range history(th) {
		if err := c.SessionUpdate(ctx, acp.SessionNotification{SessionID: s.ID(), Update: u}); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// resume loads a thread into the app-server (thread/resume) and opens a
// session on it.
func (a *Adapter) resume(ctx context.Context, id, cwd string, cfg map[string]any, c acp.Client) (*Session, *thread, error) {
	srv, err := a.server(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := a.loginError(srv); err != nil {
		return nil, nil, err
	}
	s := newSession(a, c, cwd, a.opts.Mode)
	s.cfg = cfg
	p := threadParams{ThreadID: id, Cwd: cwd, Model: a.opts.Model, Config: cfg}
	p.ApprovalPolicy, p.Sandbox = modePolicy(s.set.mode)
	var res threadResult
	if err := srv.c.Call(ctx, mThreadResume, p, &res); err != nil {
		if notFound(err) {
			return nil, nil, fmt.Errorf("%w: codex thread %s: %s", acp.ErrResourceNotFound, id, err.(*rpcError).Message)
		}
		return nil, nil, fmt.Errorf("resuming codex thread %s: %w", id, err)
	}
	a.opened(ctx, srv, s, &res)
	return s, &res.Thread, nil
}

// history is a thread's stored turns as session updates.
func history(th *thread) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	tr := newTranslator()
	for _, turn := range th.Turns {
		for i := range turn.Items {
			it := &turn.Items[i]
			switch it.Type {
			case "userMessage":
				var content []userInput
				_ = json.Unmarshal(it.Content, &content)
				for _, in := range content {
					if in.Type == "text" && in.Text != "" {
						out = append(out, acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.TextBlock(in.Text)}})
					}
				}
			case "agentMessage":
				out = append(out, chunk(it.Text, false)...)
			case "reasoning":
				out = append(out, chunk(strings.Join(it.Summary, "\n\n"), true)...)
			default:
				out = append(out, tr.itemStarted(it)...)
				out = append(out, tr.itemCompleted(it)...)
			}
		}
	}
	return out
}

// ListSessions lists Codex's stored threads (thread/list), newest first,
// with their names (or first prompt) as titles.
func (a *Adapter) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	srv, err := a.server(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	var p threadListParams
	if req.Cwd != nil {
		p.Cwd = *req.Cwd
	}
	if req.Cursor != nil {
		p.Cursor = *req.Cursor
	}
	var res threadListResult
	if err := srv.c.Call(ctx, mThreadList, p, &res); err != nil {
		return acp.ListSessionsResponse{}, fmt.Errorf("listing codex threads: %w", err)
	}
	out := acp.ListSessionsResponse{Sessions: make([]acp.SessionInfo, 0, len(res.Data)), NextCursor: res.NextCursor}
	for _, th := range res.Data {
		info := acp.SessionInfo{SessionID: acp.SessionID(th.ID), Cwd: th.Cwd}
		title := th.Name
		if title == "" {
			title = th.Preview
		}
		if title != "" {
			info.Title = &title
		}
		if th.UpdatedAt > 0 {
			at := time.Unix(th.UpdatedAt, 0).UTC().Format(time.RFC3339)
			info.UpdatedAt = &at
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}
