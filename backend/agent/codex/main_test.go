package codex

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

// TestMain removes the fake agents the tests built.
func TestMain(m *testing.M) { agenttest.Main(m) }
