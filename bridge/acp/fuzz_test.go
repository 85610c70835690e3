package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// FuzzDecode feeds arbitrary JSON to the union-heavy types: decoding must
// not panic, and whatever decodes and validates must encode again (every
// union that is present decodes to exactly one variant; a missing required
// one is Validate's to report).
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		targets := []any{
			new(acp.SessionNotification), new(acp.PromptRequest), new(acp.NewSessionRequest),
			new(acp.LoadSessionRequest), new(acp.InitializeRequest), new(acp.InitializeResponse),
			new(acp.RequestPermissionRequest), new(acp.RequestPermissionResponse),
			new(acp.SetSessionConfigOptionRequest), new(acp.NewSessionResponse),
		}
		for _, v := range targets {
			if json.Unmarshal(data, v) != nil {
				continue
			}
			if val, ok := v.(interface{ Validate() error }); !ok || val.Validate() != nil {
				continue
			}
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%T decoded from %s but does not encode: %v", v, data, err)
			}
		}
	})
}
