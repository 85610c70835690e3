package claude

import "github.com/acpbridge/acpbridge/bridge/acp"

// modeState, configOptions and permissionToolCall are Claude Code's mode state and options,
// as the tests written before dialects name them.
func modeState(current string, bypass bool) *acp.SessionModeState {
	return modeStateOf(Claude(), current, bypass)
}

func configOptions(curMode, curModel string, models []model, bypass bool) []acp.SessionConfigOption {
	return configOptionsOf(Claude(), curMode, curModel, models, bypass)
}

// permissionToolCall is toolCallAsked in Claude Code's dialect.
func permissionToolCall(req canUseTool, cwd string) acp.ToolCallUpdate {
	return toolCallAsked(Claude(), req, cwd)
}
