package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
)

// LoadSession reopens a session the CLI stored: it replays the
// conversation from the CLI's transcript file through c (user and agent
// messages, thoughts, tool calls with their results, plans, and the
// sub-agents it ran, from their own transcripts), then returns a
// session whose CLI is started in the background with --resume, so the
// next prompt continues the conversation. An id with no transcript is an
// error wrapping acp.ErrResourceNotFound.
func (a *Adapter) LoadSession(ctx context.Context, req acp.LoadSessionRequest, c acp.Client) (acp.Session, error) {
	path, err := a.stored(req.SessionID, req.Cwd)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: opening the transcript of %s: %v", acp.ErrInternal, req.SessionID, err)
	}
	chain, err := a.store.ReadChain(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: reading the transcript of %s: %v", acp.ErrInternal, req.SessionID, err)
	}
	log := a.opts.Logger.With().Str("adapter", "claude").Str("session", string(req.SessionID)).Logger()
	var kids *transcripts.Children
	if a.dialect.isClaude() {
		kids = a.store.Children(path)
	}
	if err := replayChain(ctx, c, req.SessionID, filepath.Clean(req.Cwd), chain, kids, log); err != nil {
		return nil, err
	}
	return a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers, c)
}

// ResumeSession reopens a stored session like LoadSession, without
// replaying it.
func (a *Adapter) ResumeSession(ctx context.Context, req acp.ResumeSessionRequest, c acp.Client) (acp.Session, error) {
	if _, err := a.stored(req.SessionID, req.Cwd); err != nil {
		return nil, err
	}
	return a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.McpServers, c)
}

// stored checks a load or resume request and returns the session's
// transcript.
func (a *Adapter) stored(id acp.SessionID, cwd string) (string, error) {
	if err := a.checkPath(); err != nil {
		return "", err
	}
	if err := a.checkCwd(cwd); err != nil {
		return "", err
	}
	a.mu.Lock()
	_, open := a.sessions[id]
	a.mu.Unlock()
	if open {
		return "", fmt.Errorf("%w: session %s is already open", acp.ErrInvalidRequest, id)
	}
	return a.store.Find(id, filepath.Clean(cwd))
}

// reopen opens a stored session; its CLI resumes the stored conversation.
func (a *Adapter) reopen(ctx context.Context, id acp.SessionID, cwd string, dirs []string, mcp []acp.McpServer, c acp.Client) (acp.Session, error) {
	s, err := a.open(ctx, OpenOptions{ID: id, Cwd: filepath.Clean(cwd), AdditionalDirectories: dirs,
		McpServers: mcp, Resume: true}, c)
	if err != nil {
		return nil, err
	}
	return s, nil
}
