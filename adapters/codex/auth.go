package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

const (
	mAccountRead = "account/read"
	mLoginStart  = "account/login/start"
	mLogout      = "account/logout"
)

// The ways to log Codex in that the editor is offered. Codex itself knows
// more (a ChatGPT browser or device-code login, Bedrock, Vertex), but those
// need the user at a browser with a URL or code the bridge has no ACP
// message to show, so ChatGPT is left to `codex login` in a terminal.
const (
	AuthAPIKey  acp.AuthMethodID = "openai-api-key"
	AuthChatGPT acp.AuthMethodID = "chatgpt"
)

// loginHint is what the editor shows when Codex has no credentials.
const loginHint = "Codex is not logged in. Choose a login method in the editor: \"Log in to Codex in a terminal\" (a ChatGPT account, through codex login) " +
	"or \"OpenAI API key\" (the key in OPENAI_API_KEY of acpbridge's environment)"

func authMethods() []acp.AuthMethod {
	keyDesc := "Log Codex in with the API key in acpbridge's environment (CODEX_API_KEY or OPENAI_API_KEY); Codex stores it in its auth.json. The bridge does this by itself when it starts Codex with a key and no login."
	gptDesc := "Sign in with `codex login` in a terminal first; this then checks that Codex sees the login."
	return []acp.AuthMethod{
		{Agent: &acp.AuthMethodAgent{ID: AuthAPIKey, Name: "OpenAI API key", Description: &keyDesc}},
		{Agent: &acp.AuthMethodAgent{ID: AuthChatGPT, Name: "ChatGPT account", Description: &gptDesc}},
	}
}

// authRequired is the -32000 answer for a Codex without credentials; the
// data lists the methods, as the bridge's own auth-required does.
func authRequired(msg string) error {
	return acp.NewError(int(acp.ErrAuthRequired.Code), msg, map[string]any{"authMethods": authMethods()})
}

// readLogin asks the app-server whether it can reach its model provider
// and records the answer: account/read says requiresOpenaiAuth without an
// account when the OpenAI provider has no credentials (a custom provider
// with its own key needs none).
func (a *Adapter) readLogin(ctx context.Context, srv *appServer) error {
	var res struct {
		Account            *struct{ Type string } `json:"account"`
		RequiresOpenaiAuth bool                   `json:"requiresOpenaiAuth"`
	}
	if err := srv.c.Call(ctx, mAccountRead, map[string]any{}, &res); err != nil {
		return fmt.Errorf("reading codex login state: %w", err)
	}
	var loginErr error
	if res.RequiresOpenaiAuth && res.Account == nil {
		loginErr = authRequired(loginHint)
	}
	a.mu.Lock()
	srv.loginErr = loginErr
	a.mu.Unlock()
	return nil
}

// loginFromEnv logs a Codex that has no credentials in with the API key of
// its environment, if there is one, without waiting to be asked: a user who
// set OPENAI_API_KEY (or CODEX_API_KEY) for the bridge has said how to log
// in, and an editor that would only call authenticate with it again adds a
// step that can go wrong. As with the API-key method, Codex stores the key.
func (a *Adapter) loginFromEnv(ctx context.Context, srv *appServer) error {
	key := a.apiKey()
	if key == "" || a.loginError(srv) == nil {
		return nil
	}
	if err := srv.c.Call(ctx, mLoginStart, map[string]string{"type": "apiKey", "apiKey": key}, nil); err != nil {
		return fmt.Errorf("logging codex in with the API key of the environment: %w", err)
	}
	return a.readLogin(ctx, srv)
}

// loginError is the auth-required error while srv has no credentials.
func (a *Adapter) loginError(srv *appServer) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return srv.loginErr
}

// Authenticated reports false only once the running app-server said it has
// no credentials; before it has started, session/new finds out.
func (a *Adapter) Authenticated() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.srv == nil || a.srv.loginErr == nil
}

// Authenticate logs Codex in. The API key method hands the key of the
// bridge's environment to account/login/start (Codex stores it, as `codex
// login --with-api-key` does); the ChatGPT method only checks that the
// user's own `codex login` took.
func (a *Adapter) Authenticate(ctx context.Context, req acp.AuthenticateRequest) error {
	srv, err := a.server(ctx)
	if err != nil {
		return err
	}
	switch req.MethodID {
	case AuthAPIKey:
		key := a.apiKey()
		if key == "" {
			return authRequired("no API key for Codex: set CODEX_API_KEY or OPENAI_API_KEY in acpbridge's environment")
		}
		if err := srv.c.Call(ctx, mLoginStart, map[string]string{"type": "apiKey", "apiKey": key}, nil); err != nil {
			return fmt.Errorf("logging codex in with an API key: %w", err)
		}
	case AuthChatGPT:
	default:
		return acp.InvalidParams("methodId", fmt.Sprintf("unknown auth method %q", req.MethodID))
	}
	if err := a.readLogin(ctx, srv); err != nil {
		return err
	}
	return a.loginError(srv)
}

// Logout removes Codex's stored credentials (account/logout).
func (a *Adapter) Logout(ctx context.Context) error {
	srv, err := a.server(ctx)
	if err != nil {
		return err
	}
	if err := srv.c.Call(ctx, mLogout, map[string]any{}, nil); err != nil {
		return fmt.Errorf("logging codex out: %w", err)
	}
	return a.readLogin(ctx, srv)
}

// apiKey is the API key of Codex's environment: Options.Env (last entry
// wins, an empty value hides the inherited one), else the bridge's own.
func (a *Adapter) apiKey() string {
	for _, name := range []string{"CODEX_API_KEY", "OPENAI_API_KEY"} {
		if v, ok := lookupEnv(a.opts.Env, name); ok {
			if v != "" {
				return v
			}
			continue
		}
		if v := os.Getenv(name); v != "" {
			return v
		}
	}
	return ""
}

func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// unauthorized reports a Codex error whose cause is the model provider
// refusing the credentials (codexErrorInfo "unauthorized", or an HTTP 401).
func unauthorized(info json.RawMessage) bool {
	if len(info) == 0 {
		return false
	}
	var name string
	if json.Unmarshal(info, &name) == nil {
		return name == "unauthorized"
	}
	var obj map[string]struct {
		Status *int `json:"httpStatusCode"`
	}
	if json.Unmarshal(info, &obj) != nil {
		return false
	}
	for _, v := range obj {
		if v.Status != nil && *v.Status == 401 {
			return true
		}
	}
	return false
}
