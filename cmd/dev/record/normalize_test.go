package main

import (
	"testing"

	"github.com/acpbridge/acpbridge/internal/recording"
)

func TestNormalizeLine(t *testing.T) {
	const session = "ffe0ee96-0929-44a0-86af-e1403171ced3"
	root := "/tmp/acpbridge-record-123"
	n := newNormalizer(session, root+"/project", root+"/home", root+"/tmp", root, "127.0.0.1:40123", nil, "2026-11-21", "2026-11-22")
	steps := []recording.Step{
		{Dir: recording.FromAgent, Line: []byte(`{"type":"system","subtype":"init","cwd":"/tmp/acpbridge-record-123/project","session_id":"` + session + `",` +
			`"uuid":"5249b2d5-7e9b-47bc-adf3-d3565994550a","memory_paths":{"auto":"/tmp/acpbridge-record-123/home/.claude/projects/-tmp-acpbridge-record-123-project/memory/"},` +
			`"messaging_socket_path":"/tmp/cc-socks/20526.sock","pid":4242,"n":[1,2.50,{"duration_ms":17,"ttft_ms":3,"keep":0.00036799999999999995}],` +
			`"timestamp":"2026-11-21T07:15:58.110Z","text":"<b>ünï</b> & \u2028","ok":true,"none":null}`)},
		{Dir: recording.FromAgent, Line: []byte(`{"type":"control_request","request_id":"c1a2b3c4-0000-4000-8000-00000000abcd","request":{"subtype":"can_use_tool","tool_use_id":"toolu_1",` +
			`"input":{"command":"touch /tmp/acpbridge-record-123/project/x"},"note":"check your inference gateway (127.0.0.1:40123)"}}`)},
		{Dir: recording.ToAgent, Line: []byte(`{"type":"control_response","response":{"subtype":"success","request_id":"c1a2b3c4-0000-4000-8000-00000000abcd","response":{"behavior":"allow","uuid2":"5249b2d5-7e9b-47bc-adf3-d3565994550a"}}}`)},
		{Dir: recording.FromAgent, Line: []byte(`{"attachment":{"type":"date","date":"2026-11-22"},"rendered":"Today's date is 2026-11-21.","snapshot":{"osVersion":"Linux 6.1.0-42-amd64","v":"2026-11-23"}}`)},
		// The environment block of the system prompt, as the CLI renders it
		// into a transcript attachment, on some other machine.
		{Dir: recording.FromAgent, Line: []byte(`{"snapshot":{"platform":"darwin","shell":"bash"},"rendered":[{"content":"<system-reminder>\n - Platform: darwin\n - Shell: bash\n - OS Version: Darwin 23.1.0\n - Other: x\n</system-reminder>"}]}`)},
	}
	got, err := n.steps(steps)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"system","subtype":"init","cwd":"/home/user/project","session_id":"` + session + `",` +
			`"uuid":"00000000-0000-4000-8000-000000000001","memory_paths":{"auto":"/home/user/.claude/projects/-home-user-project/memory/"},` +
			`"messaging_socket_path":"/tmp/cc-socks/0.sock","pid":0,"n":[1,2.50,{"duration_ms":0,"ttft_ms":0,"keep":0.00036799999999999995}],` +
			`"timestamp":"2026-01-01T00:00:00.000Z","text":"<b>ünï</b> & \u2028","ok":true,"none":null}`,
		`{"type":"control_request","request_id":"00000000-0000-4000-8000-000000000002","request":{"subtype":"can_use_tool","tool_use_id":"toolu_1",` +
			`"input":{"command":"touch /home/user/project/x"},"note":"check your inference gateway (127.0.0.1:8642)"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"00000000-0000-4000-8000-000000000002","response":{"behavior":"allow","uuid2":"00000000-0000-4000-8000-000000000001"}}}`,
		`{"attachment":{"type":"date","date":"2026-01-01"},"rendered":"Today's date is 2026-01-01.","snapshot":{"osVersion":"Linux","v":"2026-11-23"}}`,
		`{"snapshot":{"platform":"linux","shell":"bash"},"rendered":[{"content":"<system-reminder>\n - Platform: linux\n - Shell: bash\n - OS Version: Linux\n - Other: x\n</system-reminder>"}]}`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d steps, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i].Line) != want[i] {
			t.Errorf("step %d:\ngot  %s\nwant %s", i, got[i].Line, want[i])
		}
		if got[i].Dir != steps[i].Dir {
			t.Errorf("step %d: direction changed", i)
		}
	}
	if _, err := n.line([]byte(`{"a":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
}

func TestSessionIDStable(t *testing.T) {
	a, b := sessionID("demo"), sessionID("demo")
	if a != b || a == sessionID("text") {
		t.Fatalf("sessionID not stable or not distinct: %s %s", a, sessionID("text"))
	}
	if len(a) != 36 || a[14] != '4' || (a[19] != '8' && a[19] != '9' && a[19] != 'a' && a[19] != 'b') {
		t.Errorf("sessionID %s is not shaped like a v4 UUID", a)
	}
}

// TestNormalizeTimeIDs: opencode's message ids hold the time they were made
// and random letters; a recording renumbers them, consistently.
func TestNormalizeTimeIDs(t *testing.T) {
	n := newNormalizer("", "/p", "/h", "/t", "/r", "a:1", nil)
	got, err := n.line([]byte(`{"a":"msg_20ab491e4001PpWTjAhS0d0wZD","b":"see msg_20ab491e4001PpWTjAhS0d0wZD and prt_20ab491e4002AbCdEfGhIjKlMn"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"msg_00000000000000000000000001","b":"see msg_00000000000000000000000001 and prt_00000000000000000000000002"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestNormalizeAgentIDs: Claude Code's sub-agent and task run ids are
// random; a recording renumbers them wherever they occur (fields, paths,
// the text the model is given), consistently.
func TestNormalizeAgentIDs(t *testing.T) {
	n := newNormalizer("", "/proj", "/home1", "/tmp1", "/root1", "a:1", nil)
	got, err := n.line([]byte(`{"agent_id":"a6fa9d1a6b2e8f639","run_id":"0mx0birtz-b1767d5a","f":"/x/tasks/a6fa9d1a6b2e8f639.output","x":"agentId: a6fa9d1a6b2e8f639","h":"bd19a72a1f26b94e","u":"<usage>subagent_tokens: 28\\nduration_ms: 306</usage>"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"agent_id":"a0000000000000001","run_id":"000000000-00000002","f":"/x/tasks/a0000000000000001.output","x":"agentId: a0000000000000001","h":"bd19a72a1f26b94e","u":"<usage>subagent_tokens: 28\\nduration_ms: 0</usage>"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestNormalizeCodexValues: what Codex says of the machine and the clock.
func TestNormalizeCodexValues(t *testing.T) {
	n := newNormalizer("", "/run/p", "/run/h", "/run/t", "/run", "a:1", nil, "2026-11-23")
	got, err := n.line([]byte(`{"userAgent":"acpbridge/0.169.0 (Debian 12.0.0; aarch64) dumb","path":"/run/h/s/rollout-2026-11-23T23-21-56-x.jsonl","startedAt":1795476121,"processId":"16114"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"userAgent":"acpbridge/0.169.0 (Linux; x86_64) dumb","path":"/home/user/s/rollout-2026-01-01T00-00-00-x.jsonl","startedAt":0,"processId":"0"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
