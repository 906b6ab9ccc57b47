package opencode

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// TestDrift: recordings drifted like a future OpenCode (floats for
// integers, 1e400, unknown fields, dropped optional fields) keep every tool
// call, tool result, text and result.
func TestDrift(t *testing.T) {
	agenttest.CheckDrift(t, Format(), recordings(t))
}
