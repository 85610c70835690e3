package acp_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp/acptest"
)

// TestGoldensMatchSchema validates every golden against the official
// schema's $defs/<type>, so the hand-written types cannot drift from the
// protocol. The schema is the copy pinned in acptest.
func TestGoldensMatchSchema(t *testing.T) {
	v := acptest.Load(t)
	t.Run("rejects_bad_instances", func(t *testing.T) {
		// Guards against a validator that accepts everything.
		for def, bad := range map[string]string{
			"SessionNotification": `{"sessionId":"s","update":{"sessionUpdate":"bogus"}}`,
			"InitializeRequest":   `{"protocolVersion":"1"}`,
			"NewSessionRequest":   `{"cwd":"/repo"}`,
		} {
			if v.Validate(def, []byte(bad)) == nil {
				t.Errorf("$defs/%s accepted %s", def, bad)
			}
		}
	})
	for _, tt := range goldenCases() {
		if tt.def == "" {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(goldenPath(tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate(tt.def, data); err != nil {
				t.Errorf("testdata/%s.json: %v", tt.name, err)
			}
		})
	}
}

// loadSchemaDefs reads the schema's $defs into out.
func loadSchemaDefs(t *testing.T, out any) {
	t.Helper()
	data, err := acptest.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
}
