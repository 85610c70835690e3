package codex

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// Sub-agent threads, the adapter's side: which session a sub-agent's
// messages belong to, and stopping sub-agents. The translation is the
// turn's (subagent.go).
//
// Codex 0.169 runs a sub-agent (multi-agent v2, `[features] multi_agent_v2
// = true`, or a model whose catalogue entry selects it) as a thread of its
// own, loaded in the same app-server: the spawning thread gets a
// subAgentActivity item (kind "started", agentThreadId, agentPath), and
// the sub-agent's own turn, items, deltas and approval requests come on the
// connection under its thread id, without a thread/started and without
// thread/resume. Multi-agent v1 reports a spawn as a collabAgentToolCall
// item (tool spawnAgent) whose receiverThreadIds name the new threads.
// Either may arrive after the sub-agent's first messages (its
// thread/status/changed): those wait in early until the spawn claims them.

// sessionOf is the session the thread belongs to: its own, or the one that
// runs it as a sub-agent. Callers hold a.mu.
func (a *Adapter) sessionOf(thread string) *Session {
	if s := a.sessions[thread]; s != nil {
		return s
	}
	return a.children[thread]
}

// adoptLocked hands s the sub-agent threads m reports as spawned (by s's
// thread or one of its sub-agents): m goes to s's queue first, then what
// the new threads said before it. It reports whether it queued m. Callers
// hold a.mu; it runs on the reader goroutine and does not block.
func (a *Adapter) adoptLocked(s *Session, m *message) bool {
	kids := spawned(m)
	if len(kids) == 0 {
		return false
	}
	s.q.push(m)
	for _, k := range kids {
		a.children[k] = s
		a.early.claim(k, s.q)
	}
	return true
}

// spawned lists the sub-agent threads an item notification reports as
// started. Read with gjson: route runs for every line.
func spawned(m *message) []string {
	if len(m.ID) > 0 || (m.Method != nItemStarted && m.Method != nItemCompleted) {
		return nil
	}
	it := gjson.GetBytes(m.Params, "item")
	switch it.Get("type").Str {
	case itemSubAgent:
		if id := it.Get("agentThreadId").Str; id != "" && it.Get("kind").Str == "started" {
			return []string{id}
		}
	case itemCollab:
		if it.Get("tool").Str != "spawnAgent" {
			return nil
		}
		var out []string
		for _, r := range it.Get("receiverThreadIds").Array() {
			if r.Str != "" {
				out = append(out, r.Str)
			}
		}
		return out
	}
	return nil
}

// mCleanTerminals ends a thread's background commands (experimental).
const mCleanTerminals = "thread/backgroundTerminals/clean"

var _ acp.ChildCanceller = (*Session)(nil)

// CancelChild stops one sub-agent: turn/interrupt of its running turn,
// which leaves the session's own turn (and other sub-agents) running.
// Codex then ends the sub-agent's turn interrupted, which ends the child
// session as cancelled. It does not block: the interrupt is sent by a
// goroutine Close waits for.
func (s *Session) CancelChild(id acp.SessionID) bool {
	s.mu.Lock()
	turnID, ok := s.kids[string(id)]
	t := s.live
	if !ok || s.closed || t == nil {
		s.mu.Unlock()
		return false
	}
	srv := t.srv
	s.wg.Add(1) // before Close's Wait: closed is false under mu
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), s.a.opts.CancelGrace)
		defer cancel()
		s.interruptChild(ctx, srv, string(id), turnID)
	}()
	return true
}

// interruptChild asks Codex to stop the sub-agent thread's turn and the
// commands it started, within ctx. Codex 0.169 leaves a command of an
// interrupted turn running as a background terminal of the thread (unified
// exec), which thread/backgroundTerminals/clean ends.
func (s *Session) interruptChild(ctx context.Context, srv *appServer, thread, turnID string) {
	if err := srv.c.Call(ctx, mTurnInterrupt, turnRef{ThreadID: thread, TurnID: turnID}, nil); err != nil {
		s.a.opts.Logger.Debug().Err(err).Str("child", thread).Msg("turn/interrupt of a sub-agent")
	}
	if err := srv.c.Call(ctx, mCleanTerminals, map[string]string{"threadId": thread}, nil); err != nil {
		s.a.opts.Logger.Debug().Err(err).Str("child", thread).Msg("ending a sub-agent's commands")
	}
}

// interruptChildren interrupts every running sub-agent turn at once and
// waits for the answers, within d. It reads the running turns under the
// session's lock, so it may run beside the turn's goroutine.
func (s *Session) interruptChildren(srv *appServer, d time.Duration) {
	s.mu.Lock()
	kids := maps.Clone(s.kids)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for thread, turnID := range kids {
		wg.Go(func() { s.interruptChild(ctx, srv, thread, turnID) })
	}
	wg.Wait()
}

// stopChildren interrupts the sub-agents still running when the session
// closes (a running turn does so itself when Close cancels it; this
// covers the rest), within a second.
func (s *Session) stopChildren(srv *appServer) {
	if srv != nil && srv.gen == s.gen {
		s.interruptChildren(srv, time.Second)
	}
}

// setKid records the running turn of a sub-agent thread ("" when it
// ended), for CancelChild and Close.
func (s *Session) setKid(thread, turnID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if turnID == "" {
		delete(s.kids, thread)
		return
	}
	if s.kids == nil {
		s.kids = map[string]string{}
	}
	s.kids[thread] = turnID
}
