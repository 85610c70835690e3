package transcripts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sub-agent transcripts Claude Code 2.1.329 stored for the recording
// scenarios subagent_sync and subagent_background, kept with the engine's
// tests, which replay them (package claude, testdata/subagents/<dir>):
// session.jsonl is the session's transcript, subagents/ the folder the CLI
// keeps beside it.
const subagentsDir = "../testdata/subagents"

var childCases = []struct {
	dir        string
	agent      string // the Agent call
	id         string // the sub-agent's agent id
	background bool
}{
	{"foreground", "toolu_agent_sync_01", "a00000000000000f1", false},
	{"background", "toolu_agent_bg_01", "a00000000000000b1", true},
}

// storeChildren copies a testdata/subagents case to a fresh folder, laid
// out as the CLI keeps it (<id>.jsonl and <id>/subagents/), and returns
// the session transcript's path.
func storeChildren(t *testing.T, dir string) string {
	t.Helper()
	session := filepath.Join(t.TempDir(), "session")
	if err := os.CopyFS(session, os.DirFS(filepath.Join(subagentsDir, dir))); err != nil {
		t.Fatal(err)
	}
	path := session + ".jsonl"
	if err := os.Rename(filepath.Join(session, "session.jsonl"), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestChildren reads the sub-agent transcripts stored beside a session:
// which Agent call ran which, whether in the background, how each ended,
// and the sub-agent's own conversation.
func TestChildren(t *testing.T) {
	st := testStore(t)
	for _, tt := range childCases {
		t.Run(tt.dir, func(t *testing.T) {
			path := storeChildren(t, tt.dir)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			chain, err := st.ReadChain(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			// Other files beside the sub-agents' are not theirs.
			dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
			for _, name := range []string{"notes.jsonl", "agent-x.txt"} {
				_ = os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o600)
			}
			k := st.Children(path)
			if len(k.files) != 1 {
				t.Errorf("sub-agent transcripts %v, want only agent-%s.jsonl", k.files, tt.id)
			}
			k.Scan(chain)
			kid := k.Of(tt.agent)
			if kid == nil || kid.ID != tt.id || kid.inBackground != tt.background ||
				kid.agentType != "general-purpose" || kid.description != "Inspect project" {
				t.Fatalf("sub-agent of %s = %+v, want %s (background %v)", tt.agent, kid, tt.id, tt.background)
			}
			if got := k.Ends()[tt.agent]; got != "completed" {
				t.Errorf("it ended %q, want completed", got)
			}
			sub, err := k.Chain(kid)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, l := range sub {
				var e struct {
					Type    string
					Message struct{ Content json.RawMessage }
				}
				_ = json.Unmarshal(l, &e)
				kinds = append(kinds, e.Type)
			}
			if got := strings.Join(kinds, " "); got != "user assistant assistant user assistant" {
				t.Errorf("the sub-agent's conversation is %q, want its prompt, text, tool use, result and report", got)
			}
			// Without the meta file the Agent call's result still names
			// the sub-agent.
			if err := os.Remove(strings.TrimSuffix(kid.path, ".jsonl") + ".meta.json"); err != nil {
				t.Fatal(err)
			}
			k = st.Children(path)
			k.Scan(chain)
			if kid := k.Of(tt.agent); kid == nil || kid.ID != tt.id {
				t.Errorf("without its meta file, the sub-agent of %s = %+v", tt.agent, kid)
			}
		})
	}
}
