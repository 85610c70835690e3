package claude

import (
	"slices"
	"testing"

	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

func TestSummaryText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"the CLI's message",
			"This session is being continued from a previous conversation that ran out of context. " +
				"The summary below covers the earlier portion of the conversation.\n\n<system-reminder>\nx\n</system-reminder>\n" +
				"1. Fixed the parser.\n2. Wrote tests.\n\nIf you need specific details from before compaction (like exact code), read it.\n" +
				"Continue the conversation from where it left off.",
			"1. Fixed the parser.\n2. Wrote tests."},
		{"no pointer to the transcript",
			"The summary below covers the earlier portion of the conversation.\nSummary here.\nContinue the conversation from where it left off without asking.",
			"Summary here."},
		{"another shape is kept whole", "  Something else entirely.  ", "Something else entirely."},
		{"only instructions: kept whole", "<system-reminder>x</system-reminder>", "<system-reminder>x</system-reminder>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summaryText(tt.in); got != tt.want {
				t.Errorf("summaryText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCompactionInterrupted checks that a compaction the turn ends without
// finishing is reported cancelled, and that the next one gets a new id.
func TestCompactionInterrupted(t *testing.T) {
	var got []string
	tr := newTranslator("/p", zerolog.Nop())
	tr.compaction = true
	tr.emit = func(u acp.SessionUpdate) {
		if c := u.CompactionUpdate; c != nil {
			got = append(got, string(c.CompactionID)+" "+string(c.Status))
		}
	}
	for _, line := range []string{
		`{"type":"system","subtype":"status","status":"compacting"}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true}`,
		`{"type":"system","subtype":"status","status":"compacting"}`,
		`{"type":"system","subtype":"status","status":null,"compact_result":"success"}`,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":9,"post_tokens":3}}`,
		`{"type":"result","subtype":"success"}`, // no summary: done at the next frame
	} {
		tr.handle(event{typ: gjson.Get(line, "type").String(), subtype: gjson.Get(line, "subtype").String(), line: []byte(line)})
	}
	want := []string{"compaction-1 in_progress", "compaction-1 cancelled", "compaction-2 in_progress", "compaction-2 completed"}
	if !slices.Equal(got, want) {
		t.Errorf("compaction updates %q, want %q", got, want)
	}
}
