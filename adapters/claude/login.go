package claude

import "github.com/acpbridge/acpbridge/bridge/acp"

// loginHint is what an editor user is told when Claude Code is not logged
// in. The CLI's own message says to run /login, a command of its terminal
// interface that no editor can send; the editor offers the bridge's
// terminal login instead (when it can run one), and an API key needs no
// login at all.
const loginHint = "Claude Code is not logged in. Choose \"Log in to Claude Code in a terminal\" among the editor's login methods, " +
	"or set ANTHROPIC_API_KEY in acpbridge's environment and restart the agent."

// loginRequired is the auth-required (-32000) answer to a turn Claude Code
// refused for want of a login; its data keeps what the CLI said.
func loginRequired(cliMessage string, data map[string]any) error {
	data["cliMessage"] = cliMessage
	return acp.NewError(acp.CodeAuthRequired, loginHint, data)
}
