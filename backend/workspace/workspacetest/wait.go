package workspacetest

import (
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Eventually waits up to 10 s for cond, failing the test with what.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Alive reports whether process pid runs (a zombie does not count).
func Alive(pid int) bool { return proc.Alive(pid) }
