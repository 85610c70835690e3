package claude

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// DeleteSession deletes a stored session: its transcript and what the CLI
// keeps beside it under the same id (the sub-agent transcripts and large
// tool results in the folder next to the transcript, the file-edit
// history, the shell environment snapshots and the todo lists). A session
// open in this adapter is refused: the bridge closes its own connection's
// session first, so one still open belongs to another client, whose CLI
// would go on writing the transcript. An unknown id is resource-not-found.
func (a *Adapter) DeleteSession(ctx context.Context, req acp.DeleteSessionRequest) error {
	id := req.SessionID
	a.mu.Lock()
	_, open := a.sessions[id]
	a.mu.Unlock()
	if open {
		return fmt.Errorf("%w: session %s is open in another client; close it there first", acp.ErrInvalidRequest, id)
	}
	path, err := a.store.Find(id, "")
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The transcript goes last: while it exists, a failed deletion can be
	// retried, since the session is still listed and found.
	var errs []error
	for _, p := range a.store.Sidecars(id, path) {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: deleting session %s: %v", acp.ErrInternal, id, err)
	}
	a.opts.Logger.Info().Str("adapter", "claude").Str("session", string(id)).Str("path", path).Msg("stored session deleted")
	return nil
}
