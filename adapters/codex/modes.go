package codex

import "github.com/acpbridge/acpbridge/bridge/acp"

// Modes are Codex's approval presets, as its own TUI offers them (/approvals).
const (
	// ModeReadOnly: Codex reads files; editing and running commands that
	// need more ask first.
	ModeReadOnly = "read-only"
	// ModeAuto: Codex edits and runs commands in the workspace; going
	// beyond it (network, other directories) asks first.
	ModeAuto = "auto"
	// ModeFullAccess: no sandbox and no questions.
	ModeFullAccess = "full-access"
)

// modePolicy is the approval policy and sandbox mode of a preset, as
// thread/start takes them.
func modePolicy(mode string) (approval, sandbox string) {
	switch mode {
	case ModeReadOnly:
		return "on-request", "read-only"
	case ModeFullAccess:
		return "never", "danger-full-access"
	}
	return "on-request", "workspace-write"
}

// sandboxPolicy is the preset's sandbox as turn/start takes it.
func sandboxPolicy(mode string) any {
	switch mode {
	case ModeReadOnly:
		return map[string]any{"type": "readOnly", "networkAccess": false}
	case ModeFullAccess:
		return map[string]any{"type": "dangerFullAccess"}
	}
	return map[string]any{"type": "workspaceWrite", "writableRoots": []string{}, "networkAccess": false,
		"excludeTmpdirEnvVar": false, "excludeSlashTmp": false}
}

func modeState(current string) *acp.SessionModeState {
	return &acp.SessionModeState{CurrentModeID: acp.SessionModeID(current), AvailableModes: []acp.SessionMode{
		{ID: ModeReadOnly, Name: "Read Only", Description: ptr("Codex can read files; edits and commands beyond that ask first")},
		{ID: ModeAuto, Name: "Auto", Description: ptr("Codex can edit files and run commands in the workspace; anything beyond asks first")},
		{ID: ModeFullAccess, Name: "Full Access", Description: ptr("Codex can edit files and run commands anywhere, network included, without asking")},
	}}
}

func ptr[T any](v T) *T { return &v }

func validMode(m string) bool { return m == ModeReadOnly || m == ModeAuto || m == ModeFullAccess }
