package claude

import "testing"

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
