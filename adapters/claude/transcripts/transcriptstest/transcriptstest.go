// Package transcriptstest builds synthetic Claude Code transcript lines
// for the tests of package transcripts and of the engine that replays
// them (package claude). It is test support only: nothing that ships
// imports it, and it imports neither of those packages.
package transcriptstest

import (
	"fmt"
	"strings"
)

// Entry is a transcript line of a conversation entry, as the CLI writes
// one: of type typ (user, assistant, attachment, ...) with id uuid, its
// parent (none when ""), the working directory cwd and, unless content is
// "", a message whose content is the JSON content. extra are more members,
// each written as `"name":value`.
func Entry(typ, uuid, parent, cwd, content string, extra ...string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	fields := []string{fmt.Sprintf(`"parentUuid":%s`, p), fmt.Sprintf(`"type":%q`, typ)}
	fields = append(fields, extra...)
	if content != "" {
		role := typ
		if typ != "assistant" {
			role = "user"
		}
		fields = append(fields, fmt.Sprintf(`"message":{"role":%q,"content":%s}`, role, content))
	}
	fields = append(fields, fmt.Sprintf(`"uuid":%q`, uuid), fmt.Sprintf(`"cwd":%q`, cwd), `"sessionId":"s"`)
	return "{" + strings.Join(fields, ",") + "}"
}
