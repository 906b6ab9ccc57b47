package realcli

import (
	"os"
	"testing"

	"github.com/jean-claude/jean-claude/backend/relay"
)

// TestMain lets the test binary play `jean-claude relay` too, so that the
// suite can run its agents behind relays (docs/relay.md).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		os.Exit(relay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
