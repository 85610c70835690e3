// Command acpagent runs the scripted native-ACP agent of fixtures/testsupport/acpagent on
// stdin and stdout, for tests of the passthrough adapter and for trying
// `acpbridge acp -- acpagent` in an editor.
package main

import (
	"os"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/acpagent"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		os.Stdout.WriteString("acpagent 1.0.0\n")
		return
	}
	os.Exit(acpagent.Run(os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
