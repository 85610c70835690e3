package codex

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// A spare is a thread started ahead of the session/new that will use it:
// thread/start takes Codex tens of milliseconds (it loads the project's
// instructions, skills and MCP servers), which session/new would otherwise
// wait for. One spare is kept, for the directory and thread config of the
// last session opened (at first, Options.SpareCwd with no config: editors
// start agents in the project's directory), unless that session brought
// MCP servers of the editor's. A session/new whose directory,
// MCP servers or writable roots differ does not take it: the spare is
// unsubscribed and a new one started for the new key. A thread nobody
// prompted leaves no rollout behind, so an unused spare never shows in
// session/list. Model and approval preset are the adapter's (Options), the
// same for every new thread.
type spare struct {
	key  string
	srv  *appServer
	q    *queue        // what Codex says about the thread until a session has it
	done chan struct{} // closed when res and err are set
	res  threadResult
	err  error
}

func spareKey(cwd string, cfg map[string]any) string {
	b, _ := json.Marshal(cfg)
	return cwd + "\x00" + string(b)
}

// prestart starts a spare thread for cwd and cfg on srv in the background,
// unless one is already kept or the adapter is closed.
func (a *Adapter) prestart(srv *appServer, cwd string, cfg map[string]any) {
	if cwd == "" {
		return
	}
	for k := range cfg {
		if strings.HasPrefix(k, "mcp_servers.") {
			// The editor's MCP servers are its processes to start, for
			// a session it asked for, not ahead of one it may not.
			return
		}
	}
	sp := &spare{key: spareKey(cwd, cfg), srv: srv, q: newQueue(), done: make(chan struct{})}
	a.mu.Lock()
	if a.closed || a.spare != nil {
		a.mu.Unlock()
		return
	}
	a.spare = sp
	a.wg.Add(1) // under mu, before Close sets closed and waits
	a.mu.Unlock()
	go func() {
		defer a.wg.Done()
		defer close(sp.done)
		p := threadParams{Cwd: cwd, Model: a.opts.Model, Config: cfg}
		p.ApprovalPolicy, p.Sandbox = modePolicy(a.opts.Mode)
		sp.err = sp.srv.c.Call(a.ctx, mThreadStart, p, &sp.res)
		if sp.err == nil {
			a.mu.Lock()
			a.pending[sp.res.Thread.ID] = sp.q
			a.early.claim(sp.res.Thread.ID, sp.q)
			a.mu.Unlock()
		}
	}()
}

// takeSpare returns the spare thread started on srv for key, once Codex
// has started it, and its queue; nil when there is none that fits (the one
// kept, if any, is discarded).
func (a *Adapter) takeSpare(ctx context.Context, srv *appServer, key string) (*threadResult, *queue) {
	a.mu.Lock()
	sp := a.spare
	a.spare = nil
	a.mu.Unlock()
	if sp == nil {
		return nil, nil
	}
	if sp.key != key || sp.srv != srv {
		a.discard(sp)
		return nil, nil
	}
	select {
	case <-sp.done:
	case <-ctx.Done():
		a.discard(sp)
		return nil, nil
	}
	if sp.err != nil {
		return nil, nil
	}
	return &sp.res, sp.q
}

// discard unsubscribes a spare thread nobody will use, in the background.
func (a *Adapter) discard(sp *spare) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return // the app-server is being stopped, and its threads with it
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		select {
		case <-sp.done:
		case <-a.ctx.Done():
			return
		}
		if sp.err != nil {
			return
		}
		a.mu.Lock()
		delete(a.pending, sp.res.Thread.ID)
		a.mu.Unlock()
		ctx, cancel := context.WithTimeout(a.ctx, 5*time.Second)
		defer cancel()
		if err := sp.srv.c.Call(ctx, mThreadUnsub, map[string]string{"threadId": sp.res.Thread.ID}, nil); err != nil {
			a.opts.Logger.Debug().Err(err).Str("thread", sp.res.Thread.ID).Msg("unsubscribing an unused spare thread")
		}
	}()
}
