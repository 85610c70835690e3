package replay

import (
	"embed"

	"github.com/acpbridge/acpbridge/internal/recording"
)

// DemoName is what `acpbridge replay` takes for the recording Demo opens.
const DemoName = "demo"

// demo.txtar is a copy of fixtures/claude/demo.txtar (a test keeps them the
// same): built in, so that a binary installed without the repository's
// fixtures (a release archive, npx) can still show an editor a session.
//
//go:embed demo.txtar
var demoFS embed.FS

// Demo opens the recording built into the binary: a short Claude Code
// session with thinking, a plan, two tool calls that ask permission and a
// summary, played through Claude Code's adapter like any recording.
func Demo() (*recording.Recording, error) {
	return recording.OpenFS(demoFS, "demo.txtar")
}
