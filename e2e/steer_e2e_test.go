//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpclient"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// The whole-process tests of steering: the built binary on the real
// pinned CLI, offline against the model server's "steer" scenario (a slow
// reply, then one chosen only for a request holding the steering text),
// driven by the independent Go SDK, which sends _session/steering as the
// extension request it is (CallExtension). What the editor sees is read
// in wire order from the tap on the bridge's stdout.

// steerPrompt is the prompt whose slow reply is steered.
const steerPrompt = "Tell me something, slowly."

// steeringAdvertised checks initialize's top-level _meta.steering.
func steeringAdvertised(t *testing.T, init sdk.InitializeResponse) {
	t.Helper()
	st, _ := init.Meta["steering"].(map[string]any)
	if st["supported"] != true {
		t.Errorf("initialize _meta = %v, want steering supported", init.Meta)
	}
}

// steerWhileStreaming sends prompt, waits until its reply streams, steers
// the turn with modelserver.SteerText and returns the steering answer and
// the prompt's.
func steerWhileStreaming(ctx context.Context, t *testing.T, conn *sdk.ClientSideConnection, ed *acpclient.Editor, sid sdk.SessionId) (json.RawMessage, sdk.PromptResponse) {
	t.Helper()
	streaming := ed.Expect("")
	type answer struct {
		res sdk.PromptResponse
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(steerPrompt)}})
		answered <- answer{res, err}
	}()
	select {
	case <-streaming:
	case a := <-answered:
		t.Fatalf("the turn ended (%+v, %v) before its reply streamed", a.res, a.err)
	case <-ctx.Done():
		t.Fatal("the reply never streamed")
	}
	steered, err := conn.CallExtension(ctx, "_session/steering", map[string]any{
		"sessionId": sid,
		"prompt":    []sdk.ContentBlock{sdk.TextBlock(modelserver.SteerText)},
	})
	if err != nil {
		t.Fatalf("_session/steering: %v", err)
	}
	var a answer
	select {
	case a = <-answered:
	case <-ctx.Done():
		t.Fatal("the steered prompt was never answered")
	}
	if a.err != nil {
		t.Fatalf("session/prompt: %v", a.err)
	}
	return steered, a.res
}

// wireSteering is what a steered turn looked like on the wire: where the
// steering answer and the prompt's answer came, and the agent text sent
// before the prompt's answer.
type wireSteering struct {
	steerAnswer, promptAnswer int // frame indexes; -1 when absent
	steering                  json.RawMessage
	textBefore                string
}

// readSteering reads the frames of one steered turn: the client's
// _session/steering and session/prompt calls and the agent's answers and
// text chunks.
func readSteering(t *testing.T, frames []acpclient.Frame) wireSteering {
	t.Helper()
	w := wireSteering{steerAnswer: -1, promptAnswer: -1}
	var steerID, promptID string
	var text strings.Builder
	for i, f := range frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(f.Raw), &m); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		switch {
		case !f.FromAgent && m.Method == "_session/steering":
			steerID = string(m.ID)
		case !f.FromAgent && m.Method == "session/prompt":
			promptID = string(m.ID)
		case !f.FromAgent:
		case m.Method == "" && string(m.ID) == steerID && steerID != "":
			w.steerAnswer, w.steering = i, m.Result
		case m.Method == "" && string(m.ID) == promptID && promptID != "":
			w.promptAnswer = i
		case m.Method == "session/update" && w.promptAnswer < 0:
			for _, s := range chunks(agentFrames(t, []acpclient.Frame{f}), "agent_message_chunk") {
				text.WriteString(s)
			}
		}
	}
	w.textBefore = text.String()
	return w
}

// check asserts the order: "injected" before the prompt's answer, and the
// steered reply's text before it too.
func (w wireSteering) check(t *testing.T, frames []acpclient.Frame) {
	t.Helper()
	if !jsonSame(w.steering, `{"outcome":"injected"}`) {
		t.Errorf("_session/steering answered %s, want injected", w.steering)
	}
	if w.steerAnswer < 0 || w.promptAnswer < 0 || w.steerAnswer > w.promptAnswer {
		t.Errorf("steering answered at frame %d, the prompt at %d: want the steering answer first", w.steerAnswer, w.promptAnswer)
	}
	if !strings.Contains(w.textBefore, modelserver.SteeredReply) {
		t.Errorf("before the prompt's answer the editor got %q, without the steered reply %q", w.textBefore, modelserver.SteeredReply)
	}
	if t.Failed() {
		for _, f := range frames {
			t.Logf("%.300s", f)
		}
	}
}

func jsonSame(raw json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(raw, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && fmt.Sprint(a) == fmt.Sprint(b)
}

// modelGotSteering checks on the server side that the model's last request
// was the first turn's second, holding the steering message in its last
// user message.
func modelGotSteering(t *testing.T, srv *modelserver.Server, userText func(modelserver.Request) string) {
	t.Helper()
	reqs := srv.MainRequests()
	if len(reqs) >= 2 && strings.Contains(userText(reqs[len(reqs)-1]), modelserver.SteerText) && reqs[len(reqs)-1].Turn == 1 {
		return
	}
	for _, q := range reqs {
		t.Logf("request %d turn %d: %.200q", q.Seq, q.Turn, userText(q))
	}
	t.Error("the model's last request did not hold the steering message")
}

// e2eSteering: Claude Code takes the steering message into the running
// turn, whose answer comes after the reply to it; the next prompt is a
// turn of its own.
func e2eSteering(t *testing.T) {
	ctx, w, b, sid := e2eSession(t, "steer")
	steeringAdvertised(t, b.init)
	mark := b.Tap.Mark()
	steered, res := steerWhileStreaming(ctx, t, b.conn, b.client, sid)
	b.Track()
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("steered prompt: stopReason %q, want end_turn", res.StopReason)
	}
	frames := b.Tap.Since(mark)
	ws := readSteering(t, frames)
	if !jsonSame(steered, string(ws.steering)) {
		t.Errorf("the SDK got %s, the wire carried %s", steered, ws.steering)
	}
	ws.check(t, frames)
	modelGotSteering(t, w.srv, modelserver.Request.LastUserText)
	b.mustPrompt(ctx, sid, "And now?", sdk.StopReasonEndTurn)
}

// TestCodexE2ESteering: `acpbridge codex` on the real Codex takes the
// steering message into the running turn (turn/steer), whose answer comes
// after the reply to it; the next prompt is a turn of its own.
func TestCodexE2ESteering(t *testing.T) {
	t.Parallel()
	bin := codexenv.Require(t)
	sc, _ := modelserver.Builtin("steer")
	srv := modelserver.New(sc, modelserver.Options{Logf: t.Logf})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	p := bridgeproc.Start(t, binPath, bridgeproc.Options{Args: []string{"codex", "--codex-path", bin, "--mode", "read-only"},
		Env: append(os.Environ(), env.Vars...), Dir: env.Dir, WantClean: true})
	ed := &acpclient.Editor{}
	conn := ed.Connect(p.Stdin, p.Stdout)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	steeringAdvertised(t, init)
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: env.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	mark := p.Tap.Mark()
	_, res := steerWhileStreaming(ctx, t, conn, ed, sess.SessionId)
	if res.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("steered prompt: stopReason %q, want end_turn", res.StopReason)
	}
	frames := p.Tap.Since(mark)
	readSteering(t, frames).check(t, frames)
	modelGotSteering(t, srv, modelserver.Request.UserText)
	next, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("And now?")}})
	if err != nil || next.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("next prompt: %+v, %v", next, err)
	}
}

// TestReplaySteering plays the recording of a steered Claude Code turn
// (fixtures/claude/steer.txtar) with `acpbridge replay`: the replay offers
// steering, holds the turn at the recorded point until the editor's
// message comes, takes it as the recorded one and plays on, the reply to it
// reaching the editor before the prompt's answer. (Which of the steering
// answer and the first update after it is written first is not fixed
// here: the player answers at once, without a model between.) A recording
// without a steered message does not offer steering.
func TestReplaySteering(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, tt := range []struct {
		fixture   string
		steerable bool
	}{{"claude/steer.txtar", true}, {"claude/text.txtar", false}} {
		p := startBridge(t, "replay", fixture(tt.fixture))
		ed := &acpclient.Editor{}
		conn := ed.Connect(p.Stdin, p.Stdout)
		init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
		if err != nil {
			t.Fatalf("%s: initialize: %v", tt.fixture, err)
		}
		if !tt.steerable {
			if init.Meta != nil {
				t.Errorf("%s: initialize _meta = %v, want no steering", tt.fixture, init.Meta)
			}
			continue
		}
		steeringAdvertised(t, init)
		sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatalf("session/new: %v", err)
		}
		mark := p.Tap.Mark()
		steered, res := steerWhileStreaming(ctx, t, conn, ed, sess.SessionId)
		if res.StopReason != sdk.StopReasonEndTurn {
			t.Errorf("steered prompt: stopReason %q, want end_turn", res.StopReason)
		}
		ws := readSteering(t, p.Tap.Since(mark))
		if !jsonSame(steered, `{"outcome":"injected"}`) || ws.steerAnswer < 0 {
			t.Errorf("_session/steering answered %s (frame %d), want injected", steered, ws.steerAnswer)
		}
		if !strings.Contains(ws.textBefore, modelserver.SteeredReply) {
			t.Errorf("before the prompt's answer the editor got %q, without the steered reply %q", ws.textBefore, modelserver.SteeredReply)
		}
	}
}
