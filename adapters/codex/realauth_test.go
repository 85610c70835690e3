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
// scripted server). Without credentials: session/new is auth-required and
// says what to do, as do the ChatGPT method and the API-key method with no
// key. With a key in the environment, Codex is logged in with it without
// being asked (the model gets it); a key the provider refuses makes the
// prompt auth-required with Codex's message; after logout the next prompt
// is auth-required, and the API-key method logs Codex in again.
func TestRealCodexLogin(t *testing.T) {
	bin := codexenv.Require(t)
	const key = "sk-login-test-key"
	srv := modelserver.New(&modelserver.Scenario{Turns: []modelserver.Turn{
		{Match: "say hi", Times: 2, Blocks: []modelserver.Block{modelserver.Text("Hi after login.")}},
		{Match: "refuse me", Times: 10, Error: &modelserver.APIError{Status: 401, Message: "Incorrect API key provided"}},
	}}, modelserver.Options{})
	url := srv.Start()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// start runs Codex on its OpenAI provider with the given key variables,
	// in a CODEX_HOME of its own.
	start := func(keyVars ...string) (*Adapter, string) {
		env, err := codexenv.New(t.TempDir(), url, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(env.Home, "config.toml"), []byte(codexenv.OpenAIConfig(url)), 0o644); err != nil {
			t.Fatal(err)
		}
		a := New(Options{Path: bin, Env: append(env.Vars, keyVars...),
			Logger: zerolog.New(zerolog.NewTestWriter(t)), StopGrace: 500 * time.Millisecond})
		t.Cleanup(func() { a.Close() })
		return a, env.Dir
	}

	a, dir := start("OPENAI_API_KEY=", "CODEX_API_KEY=")
	if ids := authIDs(a.Info().AuthMethods); ids != "openai-api-key,chatgpt" {
		t.Errorf("authMethods = %s; want the API key and ChatGPT", ids)
	}
	if _, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: dir}, newRecorder().client("")); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "codex login") {
		t.Fatalf("NewSession without credentials = %v; want auth required saying how to log in", err)
	}
	if a.Authenticated() {
		t.Error("Authenticated() = true without credentials")
	}
	if err := a.Authenticate(ctx, acp.AuthenticateRequest{MethodID: AuthChatGPT}); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "codex login") {
		t.Errorf("Authenticate(chatgpt) without a login = %v; want auth required saying to run codex login", err)
	}
	if err := a.Authenticate(ctx, acp.AuthenticateRequest{MethodID: AuthAPIKey}); !errors.Is(err, acp.ErrAuthRequired) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("Authenticate(api key) without a key = %v; want auth required naming the variable", err)
	}
	a.Close()

	a, dir = start("OPENAI_API_KEY="+key, "CODEX_API_KEY=")
	s, err := a.NewSession(ctx, acp.NewSessionRequest{Cwd: dir}, newRecorder().client(""))
	if err != nil {
		t.Fatalf("NewSession with a key in the environment: %v", err)
	}
	defer s.Close()
	if !a.Authenticated() {
		t.Fatal("Authenticated() = false with a key in the environment")
	}
	prompt := func(text string) (acp.StopReason, error) {
		return s.Prompt(ctx, acp.PromptRequest{SessionID: s.ID(), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	}
	sayHi := func(when string) {
		t.Helper()
		if stop, err := prompt("say hi"); err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt %s = %q, %v; want end_turn", when, stop, err)
		}
		reqs := srv.MainRequests()
		if len(reqs) == 0 || reqs[len(reqs)-1].Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("the model request %s did not carry the environment's key", when)
		}
	}
	sayHi("with the key")
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
	if err := a.Authenticate(ctx, acp.AuthenticateRequest{MethodID: AuthAPIKey}); err != nil {
		t.Fatalf("Authenticate(api key) after logout = %v", err)
	}
	sayHi("after logging in again")
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
