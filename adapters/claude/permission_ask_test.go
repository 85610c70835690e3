package claude

import (
	"encoding/json"
	"testing"
)

// TestPermissionToolCall pins what a permission question says about its
// tool call: everything known from a real input, and nothing at all from an
// empty one (ExitPlanMode is asked that way; an empty rawInput or content
// would replace what the editor already shows for the call).
func TestPermissionToolCall(t *testing.T) {
	tests := []struct {
		name, tool, input, want string
	}{
		{"empty input", "ExitPlanMode", `{}`, `{"toolCallId":"t1","title":"Ready to code?","kind":"switch_mode"}`},
		{"no input", "ExitPlanMode", ``, `{"toolCallId":"t1","title":"Ready to code?","kind":"switch_mode"}`},
		{"bash", "Bash", `{"command":"ls -la","description":"List files"}`,
			`{"toolCallId":"t1","title":"ls -la","kind":"execute","rawInput":{"command":"ls -la","description":"List files"},
			  "content":[{"type":"content","content":{"type":"text","text":"List files"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := permissionToolCall(canUseTool{toolUseID: "t1", tool: tt.tool, input: []byte(tt.input)}, "/work")
			got, err := json.Marshal(tc)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			json.Unmarshal(got, &g)
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if string(gj) != string(wj) {
				t.Errorf("got  %s\nwant %s", gj, wj)
			}
		})
	}
}
