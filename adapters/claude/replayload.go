package claude

import (
	"context"
	"iter"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// LoadRecorded serves session/load of a recorded session (a replay): it
// sends history, the recorded conversation as (fromAgent, line) pairs, to c
// as ReplayHistory does, then opens the session in cwd resumed, so further
// prompts start the CLI (the replay's player) with --resume. The signature
// names only standard and ACP types so a replay can call it without
// importing this package.
func (a *Adapter) LoadRecorded(ctx context.Context, req acp.LoadSessionRequest, cwd string, history iter.Seq2[bool, []byte], c acp.Client) (acp.Session, error) {
	var lines []HistoryLine
	for fromAgent, line := range history {
		lines = append(lines, HistoryLine{FromAgent: fromAgent, Line: line})
	}
	if err := ReplayHistory(ctx, c, req.SessionID, cwd, lines, a.opts.Logger); err != nil {
		return nil, err
	}
	s, err := a.OpenSession(OpenOptions{ID: req.SessionID, Cwd: cwd,
		AdditionalDirectories: req.AdditionalDirectories, McpServers: req.McpServers, Resume: true}, c)
	if err != nil {
		return nil, err
	}
	return s, nil
}
