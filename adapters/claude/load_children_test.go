package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts"
	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
	"github.com/acpbridge/acpbridge/internal/recording"
)

// The sub-agent cases: the recording scenarios subagent_sync (in the
// foreground) and subagent_background, which the real-CLI tests play, and
// in testdata/subagents/<dir> the transcripts Claude Code 2.1.329 stored
// for them, cut down to their conversation entries and normalised:
// session.jsonl is the session's transcript, subagents/ the folder the CLI
// keeps beside it (<session id>/subagents/agent-<id>.jsonl and
// .meta.json).
var subagentCases = []struct {
	scenario   string
	dir        string
	agent      acp.ToolCallID // the Agent call
	child      acp.ToolCallID // the sub-agent's Bash call
	id         acp.SessionID  // the sub-agent's agent id
	background bool
}{
	{"subagent_sync", "foreground", "toolu_agent_sync_01", "toolu_child_bash_01", "a00000000000000f1", false},
	{"subagent_background", "background", "toolu_agent_bg_01", "toolu_child_bash_02", "a00000000000000b1", true},
}

// storeWithChildren puts a testdata/subagents case where the CLI keeps
// its session and sub-agent transcripts, and returns the session id and
// the transcript's path.
func storeWithChildren(t *testing.T, config, dir string) (acp.SessionID, string) {
	t.Helper()
	src := filepath.Join("testdata", "subagents", dir)
	data, err := os.ReadFile(filepath.Join(src, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	id := storeSession(t, config, recordedCwd, data)
	path := filepath.Join(config, "projects", transcripts.ProjectDir(recordedCwd), string(id)+".jsonl")
	kids := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	if err := os.MkdirAll(kids, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(src, "subagents", "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(kids, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return id, path
}

// TestStoredChildEnds checks the state a stored sub-agent is announced
// with: the end its session's transcript records, as the stop reason it
// had live.
func TestStoredChildEnds(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.dir, func(t *testing.T) {
			config := t.TempDir()
			_, path := storeWithChildren(t, config, tt.dir)
			st := newStore([]string{"CLAUDE_CONFIG_DIR=" + config})
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			chain, err := st.ReadChain(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			k := st.Children(path)
			k.Scan(chain)
			if st := taskEnds(k.Ends()).final(string(tt.agent)); st.State != acp.SubagentIdle || st.StopReason == nil || *st.StopReason != acp.StopReasonEndTurn {
				t.Errorf("final state %+v, want idle/end_turn", st)
			}
		})
	}
}

// loadStored loads a testdata/subagents case through a fresh adapter for
// client c and returns the session's id and the session. edit, if not
// nil, changes the stored files first (path is the session's transcript).
func loadStored(t *testing.T, dir string, c acp.Client, edit func(path string)) (acp.SessionID, acp.Session) {
	t.Helper()
	config := t.TempDir()
	id, path := storeWithChildren(t, config, dir)
	if edit != nil {
		edit(path)
	}
	a := New(Options{Env: []string{"CLAUDE_CONFIG_DIR=" + config}, Launch: (&launches{}).launch, Logger: testLogger(t),
		ModelWait: -1})
	t.Cleanup(func() { _ = a.Close() })
	s, err := a.LoadSession(t.Context(), acp.LoadSessionRequest{SessionID: id, Cwd: recordedCwd}, c)
	if err != nil {
		t.Fatal(err)
	}
	return id, s
}

// bySession splits an editor's frames by the session they name, as
// updates.
func bySession(t *testing.T, frames []acptest.ChildFrame) map[acp.SessionID][]acp.SessionUpdate {
	t.Helper()
	out := map[acp.SessionID][]acp.SessionUpdate{}
	for _, f := range frames {
		if f.U == nil {
			continue
		}
		raw, _ := json.Marshal(f.U)
		var u acp.SessionUpdate
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		out[f.Session] = append(out[f.Session], u)
	}
	return out
}

// TestLoadSubagentChildSessions loads a session whose sub-agent ran in the
// foreground or in the background, for an editor that takes child
// sessions: the sub-agent is replayed as the child session it was live
// (same id), announced once on the parent with the state it ended in
// before anything of it, with its prompt, text and tool call, none of
// them on the parent; the Agent call is the parent's, completed with the
// report. Nothing of it is left running.
func TestLoadSubagentChildSessions(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.dir, func(t *testing.T) {
			e := newChildEditor(t)
			id, s := loadStored(t, tt.dir, e, nil)
			frames := e.Frames()
			checkLoadedChild(t, frames, id, tt.id, tt.agent, tt.child)
			if s.(acp.ChildCanceller).CancelChild(tt.id) {
				t.Errorf("CancelChild of a loaded child = true: it is not running")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if n := len(e.Frames()); n != len(frames) {
				t.Errorf("%d frames after the load, want none: nothing of a loaded child runs", n-len(frames))
			}
		})
	}
}

// checkLoadedChild checks the frames a subagents-capable editor got for a
// loaded session (parent) with one sub-agent (child, run by the Agent call
// agent, whose Bash call is bash).
func checkLoadedChild(t *testing.T, frames []acptest.ChildFrame, parent, child acp.SessionID, agent, bash acp.ToolCallID) {
	t.Helper()
	for i, f := range frames {
		if f.Session == parent && f.U["sessionUpdate"] == "subagent_update" {
			if f.U["title"] != "Inspect project" || f.U["description"] != "general-purpose" || f.U["capabilities"] != nil {
				t.Errorf("announcement %v, want the call's description as title, the agent type, no cancel (it is over)", f.U)
			}
			break
		}
		if f.Session != parent {
			t.Fatalf("frame %d of %s before its announcement: %+v", i, f.Session, f)
		}
	}
	if got := strings.Join(acptest.SubagentStates(frames, parent, child), " "); got != "idle/end_turn" {
		t.Errorf("child states %q, want one announcement with the final state idle/end_turn", got)
	}
	sessions := bySession(t, frames)
	if len(sessions) != 2 {
		t.Errorf("updates for %d sessions, want the parent and %s", len(sessions), child)
	}
	p, c := summarize(sessions[parent]), summarize(sessions[child])
	if strings.Contains(p.text, "Child:") || strings.Contains(p.text, "CHILD_REPORT") || !strings.Contains(p.text, "The helper found README.md.") {
		t.Errorf("the parent's text = %q", p.text)
	}
	if !strings.Contains(c.user, "CHILD_TASK") || c.text != "Child: listing files.CHILD_REPORT: the project holds README.md." {
		t.Errorf("the child's prompt %q and text %q", c.user, c.text)
	}
	var pt, ct map[acp.ToolCallID]map[string]any
	_ = json.Unmarshal(p.tools, &pt)
	_ = json.Unmarshal(c.tools, &ct)
	if ct[bash]["status"] != "completed" || pt[bash] != nil {
		t.Errorf("the sub-agent's Bash call: %v in the child, %v in the parent", ct[bash], pt[bash])
	}
	if pt[agent]["status"] != "completed" || callText(pt[agent]) != "CHILD_REPORT: the project holds README.md." {
		t.Errorf("the Agent call ended %v, want completed with the report", pt[agent])
	}
}

// TestLoadSubagentUnderAgentCall loads the same sessions for an editor
// without the subagents capability: the sub-agent's tool call is under the
// Agent call (_meta naming it), its text never the parent's, and the
// Agent call completed with the report; no child session id is sent.
func TestLoadSubagentUnderAgentCall(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.dir, func(t *testing.T) {
			l := newSubagentLog()
			c := l.client(t)
			update := c.Update
			var ids []acp.SessionID
			c.Update = func(ctx context.Context, n acp.SessionNotification) error {
				ids = append(ids, n.SessionID)
				return update(ctx, n)
			}
			id, s := loadStored(t, tt.dir, c, nil)
			defer s.Close()
			checkUnderAgentCall(t, l, tt.agent, tt.child)
			for _, got := range ids {
				if got != id {
					t.Errorf("an update for session %s, want only %s", got, id)
					break
				}
			}
		})
	}
}

// checkUnderAgentCall checks what an editor without the subagents
// capability was shown of a sub-agent (run by the Agent call agent, whose
// Bash call is bash).
func checkUnderAgentCall(t *testing.T, l *subagentLog, agent, bash acp.ToolCallID) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	text := l.text.String()
	if strings.Contains(text, "Child:") || strings.Contains(text, "CHILD_REPORT") || !strings.Contains(text, "The helper found README.md.") {
		t.Errorf("the parent's text = %q", text)
	}
	child := l.calls[bash]
	if child == nil || parentOfCall(child) != string(agent) || child["status"] != "completed" {
		t.Errorf("the sub-agent's Bash call = %v, want completed under %s", child, agent)
	}
	for i, u := range l.history[bash] {
		if parentOfCall(u) != string(agent) {
			t.Errorf("update %d of the sub-agent's call does not name its parent: %v", i, u)
		}
	}
	if a := l.calls[agent]; a["status"] != "completed" || callText(a) != "CHILD_REPORT: the project holds README.md." {
		t.Errorf("the Agent call ended %v with %q, want completed with the report", a["status"], callText(a))
	}
	h := l.history[agent]
	for _, u := range h[:len(h)-1] {
		if u["status"] == "completed" || u["status"] == "failed" {
			t.Errorf("the Agent call ended before its report: %v", h)
			break
		}
	}
}

// keepLines cuts the file at path to its first n lines.
func keepLines(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:n], "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLoadSubagentUnfinished loads sessions whose transcript stops before
// the sub-agent's end was stored (the CLI was stopped under it): the child
// is announced idle with no stop reason, since how it would have ended is
// not known, and its Agent call is failed like any tool call left without
// a result; nothing of it is left running, for either editor.
func TestLoadSubagentUnfinished(t *testing.T) {
	for _, tt := range subagentCases {
		// The foreground session up to its Agent call; the background one
		// up to the parent's answer, before the task notification.
		keep := 3
		if tt.background {
			keep = 5
		}
		edit := func(path string) { keepLines(t, path, keep) }
		t.Run(tt.dir, func(t *testing.T) {
			e := newChildEditor(t)
			id, s := loadStored(t, tt.dir, e, edit)
			frames := e.Frames()
			if got := strings.Join(acptest.SubagentStates(frames, id, tt.id), " "); got != "idle" {
				t.Errorf("child states %q, want one announcement, idle with no stop reason", got)
			}
			sessions := bySession(t, frames)
			p, c := summarize(sessions[id]), summarize(sessions[tt.id])
			var pt, ct map[acp.ToolCallID]map[string]any
			_ = json.Unmarshal(p.tools, &pt)
			_ = json.Unmarshal(c.tools, &ct)
			if pt[tt.agent]["status"] != "failed" || ct[tt.child]["status"] != "completed" {
				t.Errorf("the Agent call %v, the sub-agent's Bash call %v; want failed and completed", pt[tt.agent], ct[tt.child])
			}
			if s.(acp.ChildCanceller).CancelChild(tt.id) {
				t.Errorf("CancelChild of a loaded child = true: it is not running")
			}
			_ = s.Close()

			l := newSubagentLog()
			_, s = loadStored(t, tt.dir, l.client(t), edit)
			defer s.Close()
			l.mu.Lock()
			defer l.mu.Unlock()
			if a, b := l.calls[tt.agent], l.calls[tt.child]; a["status"] != "failed" || b["status"] != "completed" || parentOfCall(b) != string(tt.agent) {
				t.Errorf("the Agent call %v, the sub-agent's Bash call %v; want failed, and completed under it", a, b)
			}
		})
	}
}

// TestLoadNestedSubagent loads a session whose sub-agent ran a sub-agent
// of its own, whose transcript is in a folder below subagents/ and has no
// meta file (its Agent call's result names it): the grandchild is
// announced on the child's session, and its text is its own.
func TestLoadNestedSubagent(t *testing.T) {
	const grand = "a00000000000000f2"
	edit := func(path string) {
		dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
		child := filepath.Join(dir, "agent-a00000000000000f1.jsonl")
		f, err := os.OpenFile(child, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString(`{"parentUuid":"00000000-0000-4000-8000-000000000010","isSidechain":true,"agentId":"a00000000000000f1","type":"assistant","message":{"id":"msg_90","role":"assistant","content":[{"type":"tool_use","id":"toolu_grand_01","name":"Agent","input":{"description":"Look deeper","prompt":"GRAND_TASK","subagent_type":"Explore"}}]},"uuid":"00000000-0000-4000-8000-000000000090"}
{"parentUuid":"00000000-0000-4000-8000-000000000090","isSidechain":true,"agentId":"a00000000000000f1","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_grand_01","type":"tool_result","content":[{"type":"text","text":"GRAND_REPORT"}]}]},"toolUseResult":{"status":"completed","agentId":"` + grand + `","content":[{"type":"text","text":"GRAND_REPORT"}]},"uuid":"00000000-0000-4000-8000-000000000091"}
`)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "nested"), 0o755); err != nil {
			t.Fatal(err)
		}
		err = os.WriteFile(filepath.Join(dir, "nested", "agent-"+grand+".jsonl"), []byte(`{"parentUuid":null,"isSidechain":true,"agentId":"`+grand+`","type":"user","message":{"role":"user","content":"GRAND_TASK"},"uuid":"00000000-0000-4000-8000-000000000092"}
{"parentUuid":"00000000-0000-4000-8000-000000000092","isSidechain":true,"agentId":"`+grand+`","type":"assistant","message":{"id":"msg_93","role":"assistant","content":[{"type":"text","text":"GRAND_REPORT"}]},"uuid":"00000000-0000-4000-8000-000000000093"}
`), 0o600)
		if err != nil {
			t.Fatal(err)
		}
	}
	e := newChildEditor(t)
	id, s := loadStored(t, "foreground", e, edit)
	defer s.Close()
	frames := e.Frames()
	const child = "a00000000000000f1"
	if got := strings.Join(acptest.SubagentStates(frames, child, grand), " "); got != "idle/end_turn" {
		t.Errorf("grandchild states on the child %q, want idle/end_turn", got)
	}
	if got := acptest.SubagentStates(frames, id, child); len(got) != 1 {
		t.Errorf("child states on the parent %q, want one", got)
	}
	announced := false
	for i, f := range frames {
		if f.Session == child && f.U["sessionId"] == grand {
			announced = true
		}
		if f.Session == grand && !announced {
			t.Fatalf("frame %d of the grandchild before its announcement", i)
		}
	}
	sessions := bySession(t, frames)
	g, c := summarize(sessions[grand]), summarize(sessions[child])
	if g.user != "GRAND_TASK" || g.text != "GRAND_REPORT" || strings.Contains(c.text, "GRAND") {
		t.Errorf("the grandchild's prompt %q and text %q, the child's text %q", g.user, g.text, c.text)
	}
	var ct map[acp.ToolCallID]map[string]any
	_ = json.Unmarshal(c.tools, &ct)
	if a := ct["toolu_grand_01"]; a["status"] != "completed" || callText(a) != "GRAND_REPORT" {
		t.Errorf("the child's Agent call %v, want completed with the report", a)
	}
}

// TestReplayHistorySubagents loads recordings of the real CLI running a
// sub-agent (a replay's session/load) for an editor that takes child
// sessions: the sub-agent is the child session it was live, announced
// once with its final state before anything of it, and nothing of it is
// the parent's.
func TestReplayHistorySubagents(t *testing.T) {
	for _, tt := range subagentCases {
		t.Run(tt.scenario, func(t *testing.T) {
			fx, err := recording.Load(filepath.Join(recordedDir, tt.scenario+".txtar"))
			if err != nil {
				t.Fatal(err)
			}
			var lines []HistoryLine
			var child acp.SessionID
			for _, st := range fx.Script {
				lines = append(lines, HistoryLine{FromAgent: st.Dir == recording.FromAgent, Line: st.Line})
				if gjson.GetBytes(st.Line, "subtype").String() == "task_started" {
					child = acp.SessionID(gjson.GetBytes(st.Line, "task_id").String())
				}
			}
			e := newChildEditor(t)
			if err := ReplayHistory(t.Context(), e, "parent", recordedCwd, lines, testLogger(t)); err != nil {
				t.Fatal(err)
			}
			checkLoadedChild(t, e.Frames(), "parent", child, tt.agent, tt.child)
		})
	}
}
