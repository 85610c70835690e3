package claude

import "github.com/acpbridge/acpbridge/bridge/acp"

// loginRequired is the auth-required (-32000) answer to a turn the CLI
// refused for want of a login: the dialect's hint for the editor user,
// with what the CLI said kept in the data.
func (d *Dialect) loginRequired(cliMessage string, data map[string]any) error {
	data["cliMessage"] = cliMessage
	return acp.NewError(acp.CodeAuthRequired, d.loginHint(), data)
}

// loginHint is the dialect's LoginHint, or one built from its title and
// command.
func (d *Dialect) loginHint() string {
	if d.LoginHint != "" {
		return d.LoginHint
	}
	return d.Title + " is not logged in. Log it in by running `" + d.Command + "` once in a terminal, then restart the agent."
}
