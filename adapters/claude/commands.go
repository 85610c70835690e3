package claude

import (
	"reflect"

	"github.com/tidwall/gjson"

	"github.com/acpbridge/acpbridge/bridge/acp"
)

// setCommands takes a list of the CLI's slash commands (skills, project and
// user commands, built-ins) and sends it as available_commands_update when
// it differs from the list the editor has, or always when always is set.
// The CLI lists them in its initialize answer (again after a restart) and,
// when the user reloads them (/reload-skills, /reload-plugins), in a
// system/commands_changed frame; it does not rescan by itself.
func (s *Session) setCommands(list gjson.Result, always bool) {
	cmds := parseCommands(list)
	s.mu.Lock()
	same := s.commandsSent && reflect.DeepEqual(s.commands, cmds)
	s.commands, s.commandsSent = cmds, true
	s.mu.Unlock()
	if same && !always {
		return
	}
	s.update(acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: cmds}})
}
