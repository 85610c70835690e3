package claude

import (
	"os"
	"testing"

	"github.com/acpbridge/acpbridge/fixtures/testsupport/leakcheck"
)

// TestMain fails the run when a test leaves a goroutine behind.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
