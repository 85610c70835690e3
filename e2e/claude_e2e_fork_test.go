//go:build linux

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
)

// TestClaudeE2EFork forks a Claude Code session after a turn (unstable
// session/fork, --resume with --fork-session): a turn on the fork sends the
// model the earlier conversation; a turn on the original afterwards does
// not send the fork's; session/list shows both; a fork of an unknown id is
// resource-not-found. The bridge's stop then checks that neither
// session's CLI survives it.
func TestClaudeE2EFork(t *testing.T) {
	t.Parallel()
	w := newE2EWorld(t, "fork")
	ctx, cancel := context.WithTimeout(t.Context(), e2eTimeout)
	defer cancel()
	b := w.start()
	if b.init.AgentCapabilities.SessionCapabilities.Fork == nil {
		t.Fatalf("initialize does not advertise sessionCapabilities.fork: %+v", b.init.AgentCapabilities.SessionCapabilities)
	}
	sid := b.newSession(ctx).SessionId
	const first = "Please remember the code word pelican."
	b.mustPrompt(ctx, sid, first, sdk.StopReasonEndTurn)

	_, err := b.conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: "00000000-0000-4000-8000-000000000000", Cwd: w.proj})
	if re, ok := e2eRPCError(err); !ok || re.Code != -32002 {
		t.Errorf("session/fork of an unknown id: %v, want error -32002 (resource not found)", err)
	}
	forked, err := b.conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: sid, Cwd: w.proj})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	fork := forked.SessionId
	if fork == "" || fork == sid {
		t.Fatalf("session/fork answered id %q (the original is %q)", fork, sid)
	}
	if forked.Modes == nil || forked.Modes.CurrentModeId != "default" || len(forked.ConfigOptions) == 0 {
		t.Errorf("session/fork answered modes %+v, options %+v", forked.Modes, forked.ConfigOptions)
	}

	mark, _ := b.client.Mark()
	const onFork = "On the fork: what was the code word?"
	b.mustPrompt(ctx, fork, onFork, sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b.client.UpdatesSince(mark)), w.said("text", 1); txt != want {
		t.Errorf("text on the fork = %q, want %q", txt, want)
	}
	reqs := w.mainRequestsText()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, onFork) || !strings.Contains(last, first) ||
		!strings.Contains(last, w.said("text", 0)) {
		t.Errorf("the fork's turn did not carry the earlier conversation to the model: %s", last)
	}

	mark, _ = b.client.Mark()
	const onOriginal = "On the original: go on."
	b.mustPrompt(ctx, sid, onOriginal, sdk.StopReasonEndTurn)
	if txt, want := acpclient.AgentText(b.client.UpdatesSince(mark)), w.said("text", 2); txt != want {
		t.Errorf("text on the original = %q, want %q", txt, want)
	}
	reqs = w.mainRequestsText()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, onOriginal) || !strings.Contains(last, first) {
		t.Errorf("the original's turn lost its conversation: %s", last)
	}
	if strings.Contains(last, onFork) || strings.Contains(last, w.said("text", 1)) {
		t.Errorf("the original's turn carries the fork's: %s", last)
	}

	list, err := b.conn.ListSessions(ctx, sdk.ListSessionsRequest{Cwd: &w.proj})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	var ids []sdk.SessionId
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionId)
	}
	if !slices.Contains(ids, sid) || !slices.Contains(ids, fork) {
		t.Errorf("session/list shows %v, want both %s and its fork %s", ids, sid, fork)
	}
	b.stop()
}
