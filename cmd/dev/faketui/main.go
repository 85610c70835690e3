// Command faketui runs the fake terminal agent of fixtures/testsupport/faketui, for
// trying `acpbridge pty` by hand and for end-to-end tests.
package main

import (
	"os"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/faketui"
)

func main() { os.Exit(faketui.Main(os.Args[1:])) }
