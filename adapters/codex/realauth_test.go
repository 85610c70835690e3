package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/acpbridge/acpbridge/bridge/acp"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/codexenv"
	"github.com/acpbridge/acpbridge/fixtures/testsupport/modelserver"
)

// TestRealCodexLogin: Codex on its own OpenAI provider (pointed at the
// scripted server) without credentials: session/new is auth-required, the
// ChatGPT method says what to do, the API-key method logs Codex in with
// the environment's key (which the model then gets), a key the provider
// refuses makes the prompt auth-required with Codex's message, and logout
// makes the next prompt auth-required again.
func TestRealCodexLogin(t *testing.T) {
	bin := codexenv.Require(t)
	const key = "sk-login-test-key"
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Blocks: []modelserver.Block{modelserver.Text("Hi after login.")}},
		{Match: "refuse me", Times: 10, Error: &modelserver.APIError{Status: 401, Message: "Incorrect API key provided"}},
	}}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	env, err := codexenv.New(t.TempDir(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Home, "config.toml"), []byte(codexenv.OpenAIConfig(url)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Path: bin, Env: append(env.Vars, "OPENAI_API_KEY="+key, "CODEX_API_KEY="),
		Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond})
	defer a.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if ids := authIDs(a.Info().AuthMethods); ids != "openai-api-key,chatgpt" {
		t.Errorf("authMethods = %s; want the API key and ChatGPT", ids)
	}
	open := func() (acp.Session, error) {
		return a.NewSession(ctx, acp.NewSessionRequest{Cwd: env.Dir}, newRecorder().client(""))
	}
	if _, err := open(); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "codex login") {
		t.Fatalf("NewSession before login = %v; want auth required saying how to log in", err)
	}
	if a.Authenticated() {
		t.Error("Authenticated() = true before login")
	}
	if err := a.Authenticate(ctx, acp.AuthenticateRequest{MethodID: AuthChatGPT}); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "codex login") {
		t.Errorf("Authenticate(chatgpt) without a login = %v; want auth required saying to run codex login", err)
	}
	if err := a.Authenticate(ctx, acp.AuthenticateRequest{MethodID: AuthAPIKey}); err != nil {
		t.Fatalf("Authenticate(api key) = %v", err)
	}
	if !a.Authenticated() {
		t.Fatal("Authenticated() = false after the API-key login")
	}
	s, err := open()
	if err != nil {
		t.Fatalf("NewSession after login: %v", err)
	}
	defer s.Close()
	prompt := func(text string) (acp.StopReason, error) {
		return s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	}
	if stop, err := prompt("say hi"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt after login = %q, %v; want end_turn", stop, err)
	}
	reqs := srv.MainRequests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("the model request did not carry the logged-in key")
	}
	if stop, err := prompt("refuse me"); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "Incorrect API key") {
		for _, r := range srv.Requests() {
			t.Logf("req %s %s %d turn=%d", r.Method, r.Path, r.Status, r.Turn)
		}
		t.Errorf("Prompt refused by the provider = %q, %v; want auth required with Codex's message", stop, err)
	}
	if err := a.Logout(ctx); err != nil {
		t.Fatalf("Logout = %v", err)
	}
	if _, err := prompt("say hi"); !errors.Is(err, acp.ErrAuthRequired) {
		t.Errorf("Prompt after logout = %v; want auth required", err)
	}
}

func authIDs(ms []acp.AuthMethod) string {
	var ids []string
	for _, m := range ms {
		if m.Agent != nil {
			ids = append(ids, string(m.Agent.ID))
		}
	}
	return strings.Join(ids, ",")
}
