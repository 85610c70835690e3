//go:build linux

package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/agentenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/bridgeproc"
)

// TestQwenStreamJSONProcesses runs the built `acpbridge stream-json
// --dialect qwen -- QWEN` on the pinned real Qwen Code, offline, with the
// independent SDK client, and checks what is left running: after the
// session's Qwen is killed mid-turn (the turn fails saying so, the killed
// process tree is gone, the next prompt starts a new Qwen), and after the
// editor closes stdin in the middle of a turn (the bridge exits and
// nothing of the world survives it: the world's tree check).
func TestQwenStreamJSONProcesses(t *testing.T) {
	t.Parallel()
	w := newNativeWorld(t, "qwen")
	b := w.startBridge(t, []string{"stream-json", "--dialect", "qwen", "--", w.env.Argv[0]})
	sid := b.newSession(t)
	allow := sdk.PermissionOptionKindAllowOnce

	r := b.prompt(t, sid, agentenv.HelloPrompt, allow)
	wantEndTurn(t, r)
	if got := strings.Join(chunks(r.frames, "agent_message_chunk"), ""); got != agentenv.HelloText {
		t.Errorf("agent text %q, want %q once", got, agentenv.HelloText)
	}

	p := b.promptAsync(t, sid, agentenv.KillPrompt, allow)
	p.streaming(t)
	pid := b.sessionAgent(t)
	pg, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pg, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r = p.wait(t, 30*time.Second)
	if bridgeproc.Alive(pid) {
		t.Errorf("the killed Qwen %d is still running", pid)
	}
	if r.err == nil || !strings.Contains(r.err.Error(), "qwen") {
		t.Errorf("the turn whose Qwen was killed answered %q, %v; want an error naming qwen", r.stop, r.err)
	}
	r = b.prompt(t, sid, "After the restart: SAY-AGAIN", allow)
	wantEndTurn(t, r)
	if again := b.sessionAgent(t); again == pid {
		t.Errorf("the session runs in the killed process %d", pid)
	}

	p = b.promptAsync(t, sid, agentenv.EOFPrompt, allow)
	p.streaming(t)
	start := time.Now()
	b.stop(t, 10*time.Second) // checks that nothing of the world survives
	t.Logf("bridge exited %v after stdin EOF mid-turn", time.Since(start).Round(time.Millisecond))
	p.wait(t, 10*time.Second)
}
