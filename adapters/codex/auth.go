package codex

import (
	"context"
	"fmt"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

const mAccountRead = "account/read"

// loginHint is what the editor shows when Codex has no credentials.
const loginHint = "Codex is not logged in: run `codex login` (ChatGPT account), or set OPENAI_API_KEY (API key), then retry"

// checkLogin asks a new app-server whether it can reach its model
// provider: account/read says requiresOpenaiAuth without an account when
// the OpenAI provider has no credentials (a custom provider with its own
// key needs none).
func checkLogin(ctx context.Context, srv *appServer) error {
	var res struct {
		Account            *struct{ Type string } `json:"account"`
		RequiresOpenaiAuth bool                   `json:"requiresOpenaiAuth"`
	}
	if err := srv.c.Call(ctx, mAccountRead, map[string]any{}, &res); err != nil {
		return fmt.Errorf("reading codex login state: %w", err)
	}
	if res.RequiresOpenaiAuth && res.Account == nil {
		srv.loginErr = acp.NewError(int(acp.ErrAuthRequired.Code), loginHint, nil)
	}
	return nil
}
