package transcripts

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/adapters/claude/transcripts/transcriptstest"
)

// TestReadChain picks the current conversation out of transcripts shaped
// like the CLI's: attachments in the chain, bookkeeping lines, branches,
// sub-agent and meta entries, compaction, resumed processes.
func TestReadChain(t *testing.T) {
	const cwd = "/w"
	text := func(s string) string { return `[{"type":"text","text":"` + s + `"}]` }
	user := func(id, parent, s string, extra ...string) string {
		return transcriptstest.Entry("user", id, parent, cwd, text(s), extra...)
	}
	asst := func(id, parent, s string, extra ...string) string {
		return transcriptstest.Entry("assistant", id, parent, cwd, text(s), extra...)
	}
	att := func(id, parent string) string { return transcriptstest.Entry("attachment", id, parent, cwd, "") }
	bookkeeping := `{"type":"last-prompt","lastPrompt":"x","leafUuid":"a1"}`
	tests := []struct {
		name  string
		lines []string
		want  []string // uuids
	}{
		{
			name: "linear with attachments",
			lines: []string{bookkeeping, user("u1", "", "hi"), att("t1", "u1"), att("t2", "t1"),
				asst("a1", "t2", "hello"), bookkeeping, att("t3", "a1"), user("u2", "t3", "again"), asst("a2", "u2", "ok"), att("t4", "a2")},
			want: []string{"u1", "a1", "u2", "a2"},
		},
		{
			name: "the latest branch wins",
			lines: []string{user("u1", "", "hi"), asst("a1", "u1", "hello"),
				user("old", "a1", "first try"), asst("olda", "old", "answer"),
				user("new", "a1", "second try"), asst("newa", "new", "better answer")},
			want: []string{"u1", "a1", "new", "newa"},
		},
		{
			name: "sub-agent and meta entries are not the conversation",
			lines: []string{user("u1", "", "hi"), asst("a1", "u1", "hello"),
				user("m1", "a1", "caveat", `"isMeta":true`), user("u2", "m1", "next"), asst("a2", "u2", "done"),
				user("s1", "a2", "task", `"isSidechain":true`), asst("s2", "s1", "sub", `"isSidechain":true`)},
			want: []string{"u1", "a1", "u2", "a2"},
		},
		{
			name: "compaction starts over",
			lines: []string{user("u1", "", "hi"), asst("a1", "u1", "hello"), att("t1", "a1"),
				`{"parentUuid":null,"logicalParentUuid":"t1","type":"system","subtype":"compact_boundary","uuid":"cb","cwd":"/w"}`,
				user("sum", "cb", "summary", `"isCompactSummary":true`), user("u2", "sum", "more"), asst("a2", "u2", "sure")},
			want: []string{"sum", "u2", "a2"},
		},
		{
			name:  "cycle",
			lines: []string{user("u1", "a1", "hi"), asst("a1", "u1", "hello"), att("t1", "a1")},
			want:  []string{"u1", "a1"},
		},
		{
			name:  "no conversation",
			lines: []string{bookkeeping, `not json`, `{"type":"queue-operation"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain, err := testStore(t).ReadChain(strings.NewReader(strings.Join(tt.lines, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range chain {
				got = append(got, gjson.GetBytes(l, "uuid").String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("chain %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTypedText(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"plain", "plain", true},
		{"<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>main.go</command-args>", "/review main.go", true},
		{"[Request interrupted by user]", "", false},
		{"[Request interrupted by user for tool use]", "", false},
		{"<local-command-stdout>out</local-command-stdout>", "", false},
		{"  ", "", false},
	}
	for _, tt := range tests {
		got, ok := TypedText(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("TypedText(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
