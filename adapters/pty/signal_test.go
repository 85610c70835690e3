package pty

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// signalProfile is the faketui profile with the fake TUI's notify command
// wired to the session's socket, as the codex profile wires Codex's.
func signalProfile(t testing.TB, extra string) *Profile {
	t.Helper()
	b, err := builtin.ReadFile("profiles/testing/faketui.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The footer of -no-idle is chrome, as the profile of an agent whose
	// idle screen the profile cannot tell would have it.
	src := strings.Replace(string(b), `\? for shortcuts|`, `\? for shortcuts|ready|`, 1)
	src = strings.Replace(src, `quiet = "100ms"`, `quiet = "100ms"
unknown = "2s"`, 1) + `
[signal]
args = ["-notify", "{notify_json}"]
turn_complete = '"type":"turn-complete".*"input-messages":\[(?:.*,)?{prompt}\]'
` + extra
	p, err := ParseProfile("signal.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The agent's report ends the turn even when its idle screen matches no
// pattern of the profile: without it the turn fails (unknown screen).
func TestSignalEndsTurnWithoutIdleScreen(t *testing.T) {
	t.Parallel()
	c := newClient(nil)
	s := fakeSession(t, signalProfile(t, ""), c, "-no-idle")
	for _, p := range []string{"hello there", "hello again"} {
		c.reset()
		stop, err := prompt(t, deadline(t), s, p)
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q) = %q, %v; want end_turn", p, stop, err)
		}
		if got, want := c.text(), "Hello from the fake TUI. You said: "+p; got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
	}
}

// A report about the previous turn that arrives during the next one (the
// fake TUI sends it when the next prompt is submitted) does not end it:
// the next turn still asks its dialog and streams its whole reply.
func TestSignalOfPreviousTurnIgnored(t *testing.T) {
	t.Parallel()
	c := newClient(choose("Yes"))
	s := fakeSession(t, signalProfile(t, "fallback = \"300ms\"\n"), c, "-notify-late")
	if stop, err := prompt(t, deadline(t), s, "hello there"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("first Prompt = %q, %v; want end_turn", stop, err)
	}
	c.reset()
	stop, err := prompt(t, deadline(t), s, "please run it")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("second Prompt = %q, %v; want end_turn", stop, err)
	}
	if got, want := c.text(), "I will run a command.\nCommand ran: 3 files."; got != want {
		t.Errorf("second reply = %q, want %q", got, want)
	}
	if len(c.asked) != 1 {
		t.Errorf("asked %d times, want once", len(c.asked))
	}
}

// Close removes the socket and its private directory.
func TestSignalSocketRemovedAtClose(t *testing.T) {
	t.Parallel()
	s := fakeSession(t, signalProfile(t, ""), newClient(nil))
	inner := s.(*closer).session
	fi, err := os.Stat(inner.sig.dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", fi.Mode().Perm())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inner.sig.dir); !os.IsNotExist(err) {
		t.Errorf("socket directory after Close: %v; want it gone", err)
	}
}

// The reporter sends its arguments and a piped stdin; the session's
// socket reads them.
func TestNotifyReachesSocket(t *testing.T) {
	t.Parallel()
	requireUnix(t)
	g, err := listen(zerolog.New(zerolog.NewTestWriter(t)), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, NotifyCommand, g.sock, "stop")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reporter: %v: %s", err, out)
	}
	select {
	case r := <-g.reports:
		if got, want := r.text(), "stop\n"+`{"hook_event_name":"Stop"}`; got != want {
			t.Errorf("report = %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no report within 10 s")
	}
}

func TestSignalClassify(t *testing.T) {
	g := &Signal{
		TurnComplete: `"type":"agent-turn-complete".*"input-messages":\[(?:.*,)?{prompt}\]`,
		Permission:   `"type":"approval-requested"`,
		Submitted:    `(?m)^submitted$`,
	}
	codex := func(msgs ...string) report {
		b, _ := json.Marshal(struct {
			Type     string   `json:"type"`
			Messages []string `json:"input-messages"`
		}{"agent-turn-complete", msgs})
		return report{Args: []string{string(b)}}
	}
	tests := []struct {
		name   string
		r      report
		prompt string
		want   eventKind
	}{
		{"this turn", codex("say hi"), "say hi", eventTurnComplete},
		{"this turn after others", codex("first", "say hi"), "say hi", eventTurnComplete},
		{"an earlier turn", codex("say hi"), "next one", eventOther},
		// Codex's title turn quotes the prompt inside its own message.
		{"a side turn quoting the prompt", codex("Make a title.\nUser prompt:\nsay hi"), "say hi", eventOther},
		{"prompt with regexp characters", codex("a (b) [c]?"), "a (b) [c]?", eventTurnComplete},
		// As Codex writes it: "<" and "&" unescaped.
		{"prompt with HTML characters", report{Args: []string{`{"type":"agent-turn-complete","input-messages":["is a < b & c?"]}`}},
			"is a < b & c?", eventTurnComplete},
		{"prompt with a quote and a newline", codex("say \"hi\"\nnow"), "say \"hi\"\nnow", eventTurnComplete},
		{"permission", report{Args: []string{`{"type":"approval-requested"}`}}, "x", eventPermission},
		{"submitted from the event argument", report{Args: []string{"submitted"}}, "x", eventSubmitted},
		{"unknown", report{Args: []string{"what"}}, "x", eventOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.classify(tt.r, tt.prompt); got != tt.want {
				t.Errorf("classify = %d, want %d", got, tt.want)
			}
		})
	}
}

// The placeholders give the reporter in the forms agents take it: a TOML
// array for Codex's -c notify=..., a shell line inside JSON for Claude
// Code's hooks.
func TestSignalExpand(t *testing.T) {
	g := &Signal{
		Args: []string{"-c", "notify={notify_json}", "--settings", `{"command":{notify_sh_json}}`},
		Env:  []string{"SOCK={socket}", "LINE={notify_sh}"},
	}
	rep := []string{"/opt/it's here/acpbridge", NotifyCommand}
	sock := `/tmp/x "y"/s`
	args, env := g.expand(sock, rep)
	var cfg struct{ Notify []string }
	if err := toml.Unmarshal([]byte(strings.TrimPrefix(args[1], "")), &cfg); err != nil {
		t.Fatalf("notify= is not TOML: %v (%s)", err, args[1])
	}
	if want := []string{rep[0], rep[1], sock}; strings.Join(cfg.Notify, "|") != strings.Join(want, "|") {
		t.Errorf("notify = %q, want %q", cfg.Notify, want)
	}
	var settings struct{ Command string }
	if err := json.Unmarshal([]byte(args[3]), &settings); err != nil {
		t.Fatalf("settings are not JSON: %v (%s)", err, args[3])
	}
	out, err := exec.Command("sh", "-c", "printf '%s|' "+settings.Command).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), rep[0]+"|"+rep[1]+"|"+sock+"|"; got != want {
		t.Errorf("the shell line runs %q, want %q", got, want)
	}
	if env[0] != "SOCK="+sock {
		t.Errorf("env = %q", env)
	}
}

func TestSignalProfileErrors(t *testing.T) {
	base := "name = \"x\"\nidle = 'x'\n"
	tests := []struct {
		src, want string
	}{
		{base + "[signal]\nargs = ['a']\n", `x.toml:3: missing "turn_complete" in [signal]`},
		{base + "[signal]\nturn_complete = '('\n", `x.toml:3: bad regular expression "("`},
		{base + "[signal]\nturn_complete = 'x'\nwhat = 1\n", `x.toml:5: unknown key "signal.what"`},
	}
	for _, tt := range tests {
		_, err := ParseProfile("x.toml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseProfile(%q) = %v, want %q", tt.src, err, tt.want)
		}
	}
}

// A $TMPDIR too long for a socket's path falls back to /tmp.
func TestSignalSocketLongTempDir(t *testing.T) {
	requireUnix(t)
	long := t.TempDir() + "/" + strings.Repeat("d", 100)
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	g, err := listen(zerolog.New(zerolog.NewTestWriter(t)), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	g.close()
}

// A dialog whose screen never stays quiet (a marker blinks beside it) is
// asked at once when the agent reports that it waits for a permission;
// without the report the quiet window never comes and nothing is asked.
func TestSignalPermissionAsksBlinkingDialog(t *testing.T) {
	t.Parallel()
	c := newClient(choose("Yes"))
	p := signalProfile(t, "permission = '\"type\":\"approval-requested\"'\n")
	s := fakeSession(t, p, c, "-blink-dialog")
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	stop, err := prompt(t, ctx, s, "please run it")
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v; want end_turn", stop, err)
	}
	if got, want := c.text(), "I will run a command.\nCommand ran: 3 files."; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

// A [signal] section with command_only leaves a command the profile does
// not name (a wrapper, which would take the arguments as its own) without
// reports: no socket, no arguments, and turns end on the idle screen.
func TestSignalCommandOnly(t *testing.T) {
	t.Parallel()
	p := signalProfile(t, "command_only = true\n")
	c := newClient(nil)
	s := fakeSession(t, p, c) // the test executable, not "faketui"
	if sig := s.(*closer).session.sig; sig != nil {
		t.Fatalf("the session listens on %s for a command the profile does not name", sig.sock)
	}
	stop, err := prompt(t, deadline(t), s, "hello")
	if err != nil || stop != acp.StopReasonEndTurn || !strings.Contains(c.text(), "You said: hello") {
		t.Fatalf("Prompt = %q, %v, reply %q; want end_turn and the reply", stop, err, c.text())
	}
}
