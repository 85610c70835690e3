package codex

import (
	"encoding/json"
	"testing"
)

// TestUnauthorized: the codexErrorInfo shapes of Codex 0.169 that mean the
// provider refused the credentials, and some that do not.
func TestUnauthorized(t *testing.T) {
	tests := []struct {
		info string
		want bool
	}{
		{`"unauthorized"`, true},
		{`{"responseStreamConnectionFailed":{"httpStatusCode":401}}`, true},
		{`{"httpConnectionFailed":{"httpStatusCode":401}}`, true},
		{`{"responseStreamConnectionFailed":{"httpStatusCode":500}}`, false},
		{`"usageLimitExceeded"`, false},
		{`null`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := unauthorized(json.RawMessage(tt.info)); got != tt.want {
			t.Errorf("unauthorized(%s) = %v, want %v", tt.info, got, tt.want)
		}
	}
}

// TestAPIKey: the key comes from Options.Env, whose last entry wins and
// whose empty value hides the bridge's own; CODEX_API_KEY before
// OPENAI_API_KEY.
func TestAPIKey(t *testing.T) {
	t.Setenv("CODEX_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "from-bridge")
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"the bridge's", nil, "from-bridge"},
		{"options first", []string{"OPENAI_API_KEY=from-options"}, "from-options"},
		{"last entry wins", []string{"OPENAI_API_KEY=a", "OPENAI_API_KEY=b"}, "b"},
		{"empty hides", []string{"OPENAI_API_KEY="}, ""},
		{"codex key first", []string{"CODEX_API_KEY=codex", "OPENAI_API_KEY=openai"}, "codex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(Options{Env: tt.env})
			defer a.Close()
			if got := a.apiKey(); got != tt.want {
				t.Errorf("apiKey() = %q, want %q", got, tt.want)
			}
		})
	}
}
