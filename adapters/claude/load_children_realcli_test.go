package claude

import (
	"context"
	"testing"
	"time"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// TestRealCLILoadSubagents runs a turn with a sub-agent (in the foreground,
// and in the background) on the real CLI for an editor that takes child
// sessions, then, in new adapters (as after restarting the bridge), loads
// the session from what the CLI stored: for an editor that takes child
// sessions, the sub-agent is the same child session as live, announced
// with its final state before its replayed updates, which are what the
// live child showed; for one that does not, the sub-agent's work is under
// the Agent call and the report is its content. Every frame is checked
// against the pinned unstable schema (the plain editor's against the
// stable one).
func TestRealCLILoadSubagents(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.scenario, func(t *testing.T) {
			newAdapter, cwd, _ := restartWorld(t, tt.scenario)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()

			// The live turn.
			live := newChildEditor(t)
			a1 := newAdapter()
			s1, err := a1.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd}, live)
			if err != nil {
				t.Fatal(err)
			}
			id := s1.ID()
			if stop, err := s1.Prompt(ctx, prompt("Ask a helper what is in the project.")); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			if err := a1.Close(); err != nil {
				t.Fatal(err)
			}
			liveFrames := live.Frames()
			child := checkChildOrder(t, liveFrames, id)

			// Loaded for an editor that takes child sessions.
			e := newChildEditor(t)
			a2 := newAdapter()
			s2, err := a2.LoadSession(ctx, acp.LoadSessionRequest{SessionID: id, Cwd: cwd}, e)
			if err != nil {
				t.Fatal(err)
			}
			frames := e.Frames()
			checkLoadedChild(t, frames, id, child, tt.agent, tt.child)
			lv, rv := bySession(t, liveFrames), bySession(t, frames)
			for _, sid := range []acp.SessionID{id, child} {
				l, r := summarize(lv[sid]), summarize(rv[sid])
				if sid == id {
					l.user, r.user = "", "" // the live turn's prompt is the editor's, not an update
				}
				if l.user != r.user || l.text != r.text || !equalJSON(l.tools, r.tools) {
					t.Errorf("session %s replayed differs from live:\nlive     %q %q %s\nreplayed %q %q %s", sid, l.user, l.text, l.tools, r.user, r.text, r.tools)
				}
			}
			if s2.(acp.ChildCanceller).CancelChild(child) {
				t.Error("CancelChild of a loaded child = true: nothing of it runs")
			}
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
			if n := len(e.Frames()) - len(frames); n != 0 {
				t.Errorf("%d frames after the load: a loaded child must be settled", n)
			}

			// Loaded for an editor without the capability.
			l := newSubagentLog()
			a3 := newAdapter()
			s3, err := a3.LoadSession(ctx, acp.LoadSessionRequest{SessionID: id, Cwd: cwd}, l.client(t))
			if err != nil {
				t.Fatal(err)
			}
			checkUnderAgentCall(t, l, tt.agent, tt.child)
			if err := s3.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
