// Command jean-claude-relay is the relay alone (docs/relay.md,
// docs/remote.md): what the app deploys to a host, without Wails or
// WebKitGTK, so hosts without a desktop can run it. It answers the same
// command line as the app's own `jean-claude relay …`.
package main

import (
	"fmt"
	"os"

	"github.com/jean-claude/jean-claude/backend/relay"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "relay" {
		fmt.Fprintln(os.Stderr, "usage: jean-claude-relay relay  (spec as JSON on stdin) | jean-claude-relay relay dial SOCKET")
		os.Exit(2)
	}
	os.Exit(relay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
}
